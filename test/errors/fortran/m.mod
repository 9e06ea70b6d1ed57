!mod$ v1 sum:7ea98a5f0b045e15
module m
contains
function f(a) result(y)
real(8),intent(in)::a(:,:)
real(8)::y
end
end
