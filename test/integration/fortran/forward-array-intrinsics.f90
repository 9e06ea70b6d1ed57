! RUN: %exec-test %s driver 0 %t
! RUN: %exec-test %s driver 1 %t
! RUN: %exec-test %s driver 2 %t
! RUN: %exec-test %s driver 3 %t
! RUN: %exec-test %s plugin 0 %t
! RUN: %exec-test %s plugin 2 %t
! Forward mode through assumed-shape arrays (descriptors for x and its tangent dx) and the
! array intrinsics sum and dot_product: flang's runtime calls at -O0 (rules/fortran.rs),
! inlined loops from -O1 on. Whole-array expressions, a strided section, the sum of a 2-D
! array and of one of its columns, and a tangent for only one of dot_product's vectors.
module shaped
  implicit none
contains
  function energy(x) result(y)
    real(8), intent(in) :: x(:)
    real(8) :: y
    y = sum(x * x) + dot_product(x, sin(x)) + sum(exp(x(2:size(x):2))) + sqrt(sum(x**2) + 1)
  end function

  function weighted(x, w) result(y)
    real(8), intent(in) :: x(:), w(:)
    real(8) :: y
    y = dot_product(w, x)**2 + sum(w * log(1 + x * x))
  end function

  function frob(a) result(y)
    real(8), intent(in) :: a(:, :)
    real(8) :: y
    y = sum(a * a) * sum(a(:, 2)) + sum(cos(a))
  end function

  function weighted_at(xw) result(y)
    real(8), intent(in) :: xw(:) ! packed [x, w]
    real(8) :: y
    integer :: n
    n = size(xw) / 2
    y = weighted(xw(1:n), xw(n + 1:))
  end function

  function frob_at(a) result(y)
    real(8), intent(in) :: a(:)
    real(8) :: y
    y = frob(reshape(a, [3, 3]))
  end function
end module

program main
  use shaped
  use fdcheck
  implicit none
  real(8) :: x(6), v(6), w(6), vw(6), a(3, 3), va(3, 3), ad
  integer :: i

  do i = 1, 6
    x(i) = 0.4d0 + 0.3d0 * sin(1.7d0 * i)
    v(i) = 0.2d0 - 0.1d0 * i
    w(i) = 1.1d0 - 0.2d0 * i
    vw(i) = 0.3d0 * cos(1.3d0 * i)
  end do
  a = reshape([(0.2d0 * i - 0.9d0 + 0.05d0 * mod(i, 4), i = 1, 9)], [3, 3])
  va = reshape([(0.1d0 * mod(i, 5) - 0.2d0, i = 1, 9)], [3, 3])

  ad = fwd1(x, v)
  call fd_check('energy along v', ad, fd_dir(energy, x, v))

  ad = fwd2(x, v, w, vw)
  call fd_check('weighted along (v, vw)', ad, fd_dir(weighted_at, [x, w], [v, vw]))

  ! Only w's tangent: dot_product's other half.
  ad = fwd2(x, 0 * v, w, vw)
  call fd_check('weighted along (0, vw)', ad, fd_dir(weighted_at, [x, w], [0 * v, vw]))

  ad = fwd2d(a, va)
  call fd_check('frob along va', ad, fd_dir(frob_at, reshape(a, [9]), reshape(va, [9])))

  call fd_finish()

contains
  function fwd1(x, dx) result(d)
    real(8) :: x(:), dx(:), d
    interface
      function fwddiff(f, x, dx) result(d) bind(C, name="__enzyme_fwddiff")
        import :: energy
        procedure(energy) :: f
        real(8) :: x(:), dx(:), d
      end function
    end interface
    d = fwddiff(energy, x, dx)
  end function

  function fwd2(x, dx, w, dw) result(d)
    real(8) :: x(:), dx(:), w(:), dw(:), d
    interface
      function fwddiff(f, x, dx, w, dw) result(d) bind(C, name="__enzyme_fwddiff")
        import :: weighted
        procedure(weighted) :: f
        real(8) :: x(:), dx(:), w(:), dw(:), d
      end function
    end interface
    d = fwddiff(weighted, x, dx, w, dw)
  end function

  function fwd2d(a, da) result(d)
    real(8) :: a(:, :), da(:, :), d
    interface
      function fwddiff(f, a, da) result(d) bind(C, name="__enzyme_fwddiff")
        import :: frob
        procedure(frob) :: f
        real(8) :: a(:, :), da(:, :), d
      end function
    end interface
    d = fwddiff(frob, a, da)
  end function
end program
