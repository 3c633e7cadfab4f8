/// Lends `value` to `body` as the `inout` binding it is. Passed on as an array element, a pointer's
/// `pointee` or a class's stored property, a large value is copied first (every reference in it
/// retained, then released); an `inout` binding is lent without a copy. `body` only reads it.
@inline(__always)
func lendInPlace<Value, Result>(_ value: inout Value, _ body: (borrowing Value) -> Result) -> Result {
    body(value)
}
