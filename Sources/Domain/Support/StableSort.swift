extension Array {
    /// The elements in `areInIncreasingOrder` order, equal ones in their order here. Positions are
    /// sorted, not the elements: a large element (a timeline input, a trip command with its bytes)
    /// would otherwise be moved, through generic copies, at every step of the sort. Inlinable, so that
    /// a caller in another module gets it specialized: unspecialized, every comparison copied both
    /// elements through their value witness (a retain and a release per reference they hold).
    @inlinable
    public func stablySorted(by areInIncreasingOrder: (Element, Element) -> Bool) -> [Element] {
        guard count > 1 else { return self }
        return withUnsafeBufferPointer { elements in
            indices.sorted { a, b in
                if areInIncreasingOrder(elements[a], elements[b]) { return true }
                if areInIncreasingOrder(elements[b], elements[a]) { return false }
                return a < b
            }.map { elements[$0] }
        }
    }
}
