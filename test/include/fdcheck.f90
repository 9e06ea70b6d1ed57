! fdcheck.f90 - the Fortran counterpart of fdcheck.h for Umbra's Fortran execution tests.
!
! exec-test.sh compiles this module with plain flang (no Umbra) and links it into every .f90
! test, which says `use fdcheck`. The checks are the same as fdcheck.h's: central differences
! with one Richardson step, R = (4 D(h/2) - D(h)) / 3, compared with a relative and absolute
! tolerance; one line per check ("ok NAME: ad=.. fd=.." or "FAIL NAME: .."), and
! `call fd_finish()` ends the program with exit status 1 when any check failed.
!
!   fd_grad(f, x, g)     g = the FD gradient of real(8) function f(x(:)) at x
!   fd_dir(f, x, v)      the FD derivative of f at x along v
!   fd_check(name, ad, fd), fd_check_array(name, ad, fd), fd_finish()
module fdcheck
  implicit none
  private
  public :: fd_fn, fd_grad, fd_dir, fd_check, fd_check_array, fd_finish
  real(8), parameter :: rtol = 1d-6, atol = 1d-8, h0 = 1d-4
  integer, save :: failures = 0, checks = 0

  abstract interface
    function fd_fn(x) result(y)
      real(8), intent(in) :: x(:)
      real(8) :: y
    end function
  end interface

contains

  function fd_dir(f, x, v) result(d)
    procedure(fd_fn) :: f
    real(8), intent(in) :: x(:), v(:)
    real(8) :: d, h, dk(2)
    integer :: k
    ! The step moves x by about h0 relative to its largest entry (fdcheck.h's fd_dir_step_).
    h = h0 * max(1d0, maxval(abs(x))) / max(1d0, maxval(abs(v)))
    do k = 1, 2
      dk(k) = (f(x + h * v) - f(x - h * v)) / (2 * h)
      h = h / 2
    end do
    d = (4 * dk(2) - dk(1)) / 3
  end function

  subroutine fd_grad(f, x, g)
    procedure(fd_fn) :: f
    real(8), intent(in) :: x(:)
    real(8), intent(out) :: g(:)
    real(8) :: e(size(x))
    integer :: i
    do i = 1, size(x)
      e = 0
      e(i) = 1
      g(i) = fd_dir(f, x, e)
    end do
  end subroutine

  subroutine fd_check(name, ad, fd)
    character(*), intent(in) :: name
    real(8), intent(in) :: ad, fd
    checks = checks + 1
    if (abs(ad - fd) <= atol + rtol * max(abs(ad), abs(fd))) then
      print '(a, a, a, es24.16, a, es24.16)', 'ok ', name, ': ad=', ad, ' fd=', fd
    else
      failures = failures + 1
      print '(a, a, a, es24.16, a, es24.16)', 'FAIL ', name, ': ad=', ad, ' fd=', fd
    end if
  end subroutine

  subroutine fd_check_array(name, ad, fd)
    character(*), intent(in) :: name
    real(8), intent(in) :: ad(:), fd(:)
    integer :: i
    character(len=16) :: idx
    do i = 1, size(ad)
      write (idx, '(i0)') i
      call fd_check(name // '(' // trim(idx) // ')', ad(i), fd(i))
    end do
  end subroutine

  subroutine fd_finish()
    print '(a, i0, a, i0, a)', 'fdcheck: ', checks, ' checks, ', failures, ' failures'
    if (checks == 0 .or. failures > 0) error stop 1
  end subroutine
end module
