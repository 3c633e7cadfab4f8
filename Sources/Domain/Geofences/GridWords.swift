/// A grid cell's packed words (`GridCell`): an array of `UInt64` with copy-on-write value semantics
/// whose elements live in memory its buffer object allocated and owns, so their address (`address`)
/// stays valid for as long as that object lives and is not changed, not only inside a closure as an
/// array's does.
///
/// Changed in place: an insert or a removal moves the words after it within the buffer, which grows
/// (to a new allocation of twice the words, the object kept) only when full. A value shared with
/// another (a copied table) is copied once, on its first change.
struct GridWords: Sendable {
    /// The owner of the words' memory. Never shared while written: every change goes through
    /// `makeUnique`, which copies a buffer that another value also holds.
    final class Buffer: @unchecked Sendable {
        // Safe: `base`, `count` and `capacity` and the words are written only by `GridWords`' mutating
        // methods, each on a buffer it holds the only reference to (`makeUnique`: after
        // `isKnownUniquelyReferenced`, no other value, cell, table or thread can reach it); a buffer
        // reachable from two values is only read.
        // A buffer is reached from another thread only through a value sent there, so its writes
        // happen before (by the send) any read there.
        private(set) var base: UnsafeMutablePointer<UInt64>
        private(set) var count: Int
        private(set) var capacity: Int

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 1)
            base = .allocate(capacity: self.capacity)
            count = 0
        }

        /// A copy of `other`'s words, with room for `capacity`.
        convenience init(copying other: Buffer, capacity: Int) {
            self.init(capacity: Swift.max(capacity, other.count))
            base.initialize(from: other.base, count: other.count)
            count = other.count
        }

        deinit { base.deallocate() }  // UInt64 is trivial: nothing to deinitialize

        /// Makes room for `needed` words, moving them to a larger allocation if they do not fit.
        func reserve(_ needed: Int) {
            guard needed > capacity else { return }
            // Exact while small (most cells of a sparse table hold one or two geofences), doubling beyond.
            let grown = needed < 64 ? needed : Swift.max(needed, capacity * 2)
            let moved = UnsafeMutablePointer<UInt64>.allocate(capacity: grown)
            moved.moveInitialize(from: base, count: count)
            base.deallocate()
            base = moved
            capacity = grown
        }

        /// Puts `words` at `index`, moving the words from there up by their count.
        func insert(_ words: UnsafeBufferPointer<UInt64>, at index: Int) {
            precondition(index >= 0 && index <= count, "GridWords: insert beyond the end")
            reserve(count + words.count)
            (base + index + words.count).moveInitialize(from: base + index, count: count - index)
            if let start = words.baseAddress { (base + index).initialize(from: start, count: words.count) }
            count += words.count
        }

        /// Drops the words in `range`, moving the later ones down.
        func remove(_ range: Range<Int>) {
            precondition(range.lowerBound >= 0 && range.upperBound <= count, "GridWords: removal beyond the end")
            (base + range.lowerBound).moveInitialize(from: base + range.upperBound, count: count - range.upperBound)
            count -= range.count
        }

        func set(_ word: UInt64, at index: Int) {
            precondition(index >= 0 && index < count, "GridWords: index out of range")
            base[index] = word
        }
    }

    /// Nil while empty: an empty cell allocates nothing.
    private var buffer: Buffer?

    init() {}

    init(_ words: [UInt64]) {
        guard !words.isEmpty else { return }
        let buffer = Buffer(capacity: words.count)
        words.withUnsafeBufferPointer { buffer.insert($0, at: 0) }
        self.buffer = buffer
    }

    var count: Int { buffer?.count ?? 0 }
    var isEmpty: Bool { count == 0 }
    /// Words the buffer holds before it must grow.
    var capacity: Int { buffer?.capacity ?? 0 }

    /// The address of the first word, nil while empty: valid while this value is not changed (a
    /// change may move the words, and gives a value its own buffer if it shared one) and while it,
    /// or a copy of it, lives. Memory this value's buffer owns, not lent by a closure.
    var address: UnsafePointer<UInt64>? { buffer.map { UnsafePointer($0.base) } }

    subscript(index: Int) -> UInt64 {
        get {
            precondition(index >= 0 && index < count, "GridWords: index out of range")
            return buffer!.base[index]
        }
        set {
            makeUnique(reserving: count)
            buffer!.set(newValue, at: index)
        }
    }

    /// The words `range`, copied out.
    subscript(range: Range<Int>) -> [UInt64] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "GridWords: range beyond the end")
        return withUnsafeBufferPointer { Array($0[range]) }
    }

    /// The words, lent to `body` for reading.
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt64>) throws -> R) rethrows -> R {
        guard let buffer else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(buffer) { try body(UnsafeBufferPointer(start: buffer.base, count: buffer.count)) }
    }

    /// Gives this value a buffer of its own with room for `needed` words: the shared one copied first
    /// (once, with that room), a missing one allocated. The changes then work on `buffer!` in place
    /// (a reference returned from here was retained and released on every change).
    private mutating func makeUnique(reserving needed: Int) {
        // Asked before any other reference to the buffer is taken: one held here would make it shared.
        if buffer == nil {
            buffer = Buffer(capacity: needed)
        } else if !isKnownUniquelyReferenced(&buffer) {
            buffer = Buffer(copying: buffer!, capacity: needed)
        } else {
            buffer!.reserve(needed)
        }
    }

    mutating func reserveCapacity(_ needed: Int) { makeUnique(reserving: needed) }

    mutating func insert(contentsOf words: [UInt64], at index: Int) {
        guard !words.isEmpty else { return }
        makeUnique(reserving: count + words.count)
        words.withUnsafeBufferPointer { buffer!.insert($0, at: index) }
    }

    mutating func append(contentsOf words: Slice<UnsafeBufferPointer<UInt64>>) {
        guard !words.isEmpty else { return }
        makeUnique(reserving: count + words.count)
        buffer!.insert(UnsafeBufferPointer(rebasing: words), at: buffer!.count)
    }

    mutating func removeSubrange(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        makeUnique(reserving: count)
        buffer!.remove(range)
    }

    /// Writes `words` over the words from `index` on.
    mutating func replace(at index: Int, with words: [UInt64]) {
        precondition(index >= 0 && index + words.count <= count, "GridWords: replacement beyond the end")
        makeUnique(reserving: count)
        for (offset, word) in words.enumerated() { buffer!.set(word, at: index + offset) }
    }

    /// Empties the value, releasing its buffer.
    mutating func removeAll() { buffer = nil }
}
