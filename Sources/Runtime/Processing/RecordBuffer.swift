/// Encoded output records of one topic, contiguous: values back to back (optionally newline
/// separated, which makes the buffer an NDJSON file image), keys likewise, with their end offsets.
///
/// One growing buffer per topic instead of an array per record: encoding a batch allocates nothing
/// once capacities have grown.
public struct RecordBuffer: Sendable {
    public private(set) var values: [UInt8] = []
    public private(set) var keys: [UInt8] = []
    private var valueEnds: [Int] = []
    private var keyEnds: [Int] = []
    /// Whether a `\n` follows every value (NDJSON files); not part of the record.
    public let newlineSeparated: Bool

    public init(newlineSeparated: Bool) { self.newlineSeparated = newlineSeparated }

    public var count: Int { valueEnds.count }
    public var isEmpty: Bool { valueEnds.isEmpty }
    /// Bytes held (keys and values).
    public var byteCount: Int { values.count + keys.count }

    /// Appends a record whose value `encode` appends to the buffer it is given.
    public mutating func append(key: some StringProtocol, encode: (inout [UInt8]) -> Void) {
        // From the string's bytes in one copy; appending its UTF-8 view walks it byte by byte.
        let copied: Void? = key.utf8.withContiguousStorageIfAvailable { keys.append(contentsOf: $0) }
        if copied == nil { keys.append(contentsOf: key.utf8) }
        keyEnds.append(keys.count)
        encode(&values)
        valueEnds.append(values.count)
        if newlineSeparated { values.append(UInt8(ascii: "\n")) }
    }

    /// Appends a record with raw key bytes (nil key is stored as empty).
    public mutating func append(keyBytes: [UInt8]?, encode: (inout [UInt8]) -> Void) {
        if let keyBytes { keys.append(contentsOf: keyBytes) }
        keyEnds.append(keys.count)
        encode(&values)
        valueEnds.append(values.count)
        if newlineSeparated { values.append(UInt8(ascii: "\n")) }
    }

    /// Appends every record of `other` (a key it stored as empty stays empty).
    public mutating func append(contentsOf other: RecordBuffer) {
        other.forEach { key, value in
            append(keyBytes: key.isEmpty ? nil : Array(key)) { $0.append(contentsOf: value) }
        }
    }

    /// Calls `body` with each record's key and value bytes, valid only inside the call.
    public func forEach(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void) rethrows {
        try values.withUnsafeBytes { allValues in
            try keys.withUnsafeBytes { allKeys in
                var valueStart = 0, keyStart = 0
                for index in 0..<valueEnds.count {
                    let key = UnsafeRawBufferPointer(rebasing: allKeys[keyStart..<keyEnds[index]])
                    let value = UnsafeRawBufferPointer(rebasing: allValues[valueStart..<valueEnds[index]])
                    try body(key, value)
                    keyStart = keyEnds[index]
                    valueStart = valueEnds[index] + (newlineSeparated ? 1 : 0)
                }
            }
        }
    }

    /// Where record `index` starts in `values` (`count` gives the end of the last one, its newline included).
    public func valueOffset(ofRecord index: Int) -> Int {
        index == 0 ? 0 : valueEnds[index - 1] + (newlineSeparated ? 1 : 0)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        valueEnds.removeAll(keepingCapacity: true)
        keyEnds.removeAll(keepingCapacity: true)
    }
}
