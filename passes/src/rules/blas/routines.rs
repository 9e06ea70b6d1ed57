//! The signature of each CBLAS routine the rules cover, in one place: the levels build their
//! rules from them, and [`super::emit`] emits calls through them (derivative code calling BLAS),
//! without either depending on the other.

use super::signature::{Param, Signature};

pub(super) static DOT: Signature = Signature {
    name: "dot",
    params: &[
        Param::int("n"),
        Param::vector("x", "incx").kept(),
        Param::int("incx"),
        Param::vector("y", "incy").kept(),
        Param::int("incy"),
    ],
    returns_real: true,
    output: None,
    result_kept: false,
};

pub(super) static NRM2: Signature = Signature {
    name: "nrm2",
    params: &[
        Param::int("n"),
        Param::vector("x", "incx").kept(),
        Param::int("incx"),
    ],
    returns_real: true,
    output: None,
    result_kept: true,
};

pub(super) static AXPY: Signature = Signature {
    name: "axpy",
    params: &[
        Param::int("n"),
        Param::real("alpha"),
        Param::vector("x", "incx").kept(),
        Param::int("incx"),
        Param::vector("y", "incy"),
        Param::int("incy"),
    ],
    returns_real: false,
    output: Some("y"),
    result_kept: false,
};

pub(super) static SCAL: Signature = Signature {
    name: "scal",
    params: &[
        Param::int("n"),
        Param::real("alpha"),
        Param::vector("x", "incx").kept(),
        Param::int("incx"),
    ],
    returns_real: false,
    output: Some("x"),
    result_kept: false,
};

pub(super) static COPY: Signature = Signature {
    name: "copy",
    params: &[
        Param::int("n"),
        Param::vector("x", "incx"),
        Param::int("incx"),
        Param::vector("y", "incy"),
        Param::int("incy"),
    ],
    returns_real: false,
    output: Some("y"),
    result_kept: false,
};

pub(super) static GEMV: Signature = Signature {
    name: "gemv",
    params: &[
        Param::order(),
        Param::trans("trans"),
        Param::int("m"),
        Param::int("n"),
        Param::real("alpha"),
        Param::matrix("A", "lda").kept(),
        Param::int("lda"),
        Param::vector("x", "incx").kept(),
        Param::int("incx"),
        Param::real("beta"),
        Param::vector("y", "incy").kept(),
        Param::int("incy"),
    ],
    returns_real: false,
    output: Some("y"),
    result_kept: false,
};

pub(super) static GER: Signature = Signature {
    name: "ger",
    params: &[
        Param::order(),
        Param::int("m"),
        Param::int("n"),
        Param::real("alpha"),
        Param::vector("x", "incx").kept(),
        Param::int("incx"),
        Param::vector("y", "incy").kept(),
        Param::int("incy"),
        Param::matrix("A", "lda"),
        Param::int("lda"),
    ],
    returns_real: false,
    output: Some("A"),
    result_kept: false,
};

pub(super) static GEMM: Signature = Signature {
    name: "gemm",
    params: &[
        Param::order(),
        Param::trans("transa"),
        Param::trans("transb"),
        Param::int("m"),
        Param::int("n"),
        Param::int("k"),
        Param::real("alpha"),
        Param::matrix("A", "lda").kept(),
        Param::int("lda"),
        Param::matrix("B", "ldb").kept(),
        Param::int("ldb"),
        Param::real("beta"),
        Param::matrix("C", "ldc").kept(),
        Param::int("ldc"),
    ],
    returns_real: false,
    output: Some("C"),
    result_kept: false,
};
