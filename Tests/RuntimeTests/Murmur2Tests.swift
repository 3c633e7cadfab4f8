import Runtime
import Testing

/// Kafka's murmur2 must match the Java client's and librdkafka's bit for bit, or a replay would
/// group users differently from the topics' partitions.
@Suite struct Murmur2Tests {
    /// Apache Kafka's `UtilsTest.testMurmur2`, and librdkafka's `rdmurmur2.c` unit test for "kafka".
    @Test(arguments: [
        ("21", -973_932_308), ("foobar", -790_332_482), ("a-little-bit-long-string", -985_981_536),
        ("a-little-bit-longer-string", -1_486_304_829),
        ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971), ("abc", 479_470_107),
        ("kafka", -798_503_068),
    ])
    func knownVectors(key: String, hash: Int) {
        #expect(Murmur2.hash(Array(key.utf8)) == Int32(hash))
        #expect(Murmur2.hash(key.utf8) == Int32(hash), "a String's UTF-8 view hashes like its bytes")
    }

    @Test func partitionIsThePositiveHashModuloTheCount() {
        let partitioner = KeyPartitioner(partitions: 12)
        // murmur2("foobar") = -790332482; & 0x7fffffff = 1357151166; % 12 = 6.
        #expect(partitioner.partition(ofUser: "foobar") == 1_357_151_166 % 12)
        #expect(partitioner.partition(ofUser: "") == Int(UInt32(bitPattern: Murmur2.hash([UInt8]())) & 0x7fff_ffff) % 12)
    }

    /// A userId is hashed over its own storage: the same partition as its UTF-8 bytes, whatever its
    /// length (each tail) and characters, also for a String sliced out of a larger one.
    @Test func userIdsPartitionAsTheirBytes() {
        let partitioner = KeyPartitioner(partitions: 12)
        let long = "driver-ü-ñ-😀-" + String(repeating: "x", count: 1_000)
        for length in 0..<40 {
            let userId = String(long.unicodeScalars.prefix(length))
            #expect(partitioner.partition(ofUser: userId) == partitioner.partition(of: Array(userId.utf8)))
        }
        let sliced = String(long.dropFirst(3).prefix(17))
        #expect(partitioner.partition(ofUser: sliced) == partitioner.partition(of: Array(sliced.utf8)))
    }
}
