! RUN: %exec-test %s driver 1 %t
! RUN: %exec-test %s driver 2 %t
! RUN: %exec-test %s driver 3 %t
! RUN: %exec-test %s plugin 2 %t
! matmul (matrix-matrix and matrix-vector) and transpose on 2-D assumed-shape arrays, in reverse
! and forward mode. From -O1 on flang inlines them as loops; at -O0 they are calls of its
! runtime library, which Umbra refuses (test/errors/fortran/matmul.f90).
module mm
  implicit none
contains
  function f(a, b) result(y)
    real(8), intent(in) :: a(:, :), b(:, :)
    real(8) :: y
    real(8) :: c(size(a, 1), size(b, 2)), v(size(a, 1))
    c = matmul(a, b)
    v = matmul(transpose(a), [1d0, 2d0, 3d0])
    y = sum(c**2) + sum(sin(v))
  end function

  function f_at(ab) result(y)
    real(8), intent(in) :: ab(:) ! packed [a (3x3), b (3x2)]
    real(8) :: y
    y = f(reshape(ab(1:9), [3, 3]), reshape(ab(10:15), [3, 2]))
  end function
end module

program main
  use mm
  use fdcheck
  implicit none
  real(8) :: a(3, 3), b(3, 2), da(3, 3), db(3, 2), va(3, 3), vb(3, 2), fd(15), ad
  integer :: i
  interface
    subroutine autodiff(fn, a, da, b, db) bind(C, name="__enzyme_autodiff")
      import :: f
      procedure(f) :: fn
      real(8) :: a(:, :), da(:, :), b(:, :), db(:, :)
    end subroutine
    function fwddiff(fn, a, da, b, db) result(d) bind(C, name="__enzyme_fwddiff")
      import :: f
      procedure(f) :: fn
      real(8) :: a(:, :), da(:, :), b(:, :), db(:, :), d
    end function
  end interface

  a = reshape([(0.3d0 * sin(1.1d0 * i) + 0.1d0, i = 1, 9)], [3, 3])
  b = reshape([(0.5d0 - 0.15d0 * i, i = 1, 6)], [3, 2])
  va = reshape([(0.1d0 * mod(i, 4) - 0.1d0, i = 1, 9)], [3, 3])
  vb = reshape([(0.2d0 * cos(0.7d0 * i), i = 1, 6)], [3, 2])

  da = 0
  db = 0
  call autodiff(f, a, da, b, db)
  call fd_grad(f_at, [reshape(a, [9]), reshape(b, [6])], fd)
  call fd_check_array('f da', reshape(da, [9]), fd(1:9))
  call fd_check_array('f db', reshape(db, [6]), fd(10:15))

  ad = fwddiff(f, a, va, b, vb)
  call fd_check('f along (va, vb)', ad, &
    fd_dir(f_at, [reshape(a, [9]), reshape(b, [6])], [reshape(va, [9]), reshape(vb, [6])]))

  call fd_finish()
end program
