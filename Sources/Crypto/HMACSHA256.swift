import COpenSSL

/// HMAC-SHA256 (RFC 2104) and a comparison whose time does not depend on where two byte strings differ,
/// both from OpenSSL's libcrypto: no hash of our own. The only importer of `COpenSSL`.
public enum HMACSHA256 {
    /// Bytes in a MAC.
    public static let byteCount = 32

    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let done = withNonNullBytes(key) { keyBytes, keyCount in
            withNonNullBytes(message) { messageBytes, messageCount in
                mac.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyBytes, Int32(clamping: keyCount),
                         messageBytes.assumingMemoryBound(to: UInt8.self), messageCount, out.baseAddress, &length) != nil
                }
            }
        }
        // HMAC fails only when libcrypto cannot allocate or lacks SHA-256: nothing an input can cause.
        precondition(done && length == UInt32(byteCount), "libcrypto's HMAC-SHA256 failed")
        return mac
    }

    /// True when `a` equals `b`. Compares every byte whatever the first difference (`CRYPTO_memcmp`); only
    /// the lengths, which are not secret, are compared first.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// Lends `bytes`' address, or a one-byte stand-in when empty (an empty array may lend nil, and libcrypto
    /// treats a null key as "keep the previous key"); the pointer lives only inside `body`.
    private static func withNonNullBytes<Result>(_ bytes: [UInt8], _ body: (UnsafeRawPointer, Int) -> Result)
        -> Result
    {
        if bytes.isEmpty {
            let standIn: UInt8 = 0
            return withUnsafeBytes(of: standIn) { body($0.baseAddress!, 0) }
        }
        return bytes.withUnsafeBytes { body($0.baseAddress!, $0.count) }
    }
}
