// swift-tools-version:6.0
import PackageDescription

// Arrows point inward: Domain imports nothing of the project; Codec knows Domain;
// Runtime knows Domain, Codec and KafkaIO; the executable wires everything.
let package = Package(
    name: "TripStream",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tripstream", targets: ["tripstream"])
    ],
    targets: [
        // MARK: - C libraries from Debian, each behind one thin Swift target
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(name: "CRocksDB", pkgConfig: "rocksdb", providers: [.apt(["librocksdb-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // epoll and eventfd, which Glibc's Swift module leaves out; headers of the C library, nothing to link.
        .systemLibrary(name: "CLinuxEvents"),
        .target(name: "KafkaIO", dependencies: ["CRdKafka"]),
        .target(name: "RocksDBIO", dependencies: ["CRocksDB"]),
        .target(name: "LZ4IO", dependencies: ["CLZ4"]),
        // HMAC-SHA256 and the constant-time compare from libcrypto.
        .target(name: "Crypto", dependencies: ["COpenSSL"]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // SQLite, for the console's base map: a raster MBTiles file.
        .target(name: "SQLiteIO", dependencies: ["CSQLite"]),
        .target(name: "CHeapStats"),

        // MARK: - Pure code
        // Extern: `@_extern(c)` reaches LLVM's prefetch intrinsic (Support/CachePrefetch.swift).
        .target(name: "Domain", swiftSettings: [.enableExperimentalFeature("Extern")]),
        .target(name: "Codec", dependencies: ["Domain"]),
        .target(name: "CommandLineKit"),
        .target(name: "Simulation", dependencies: ["Domain", "Codec"]),
        // One HTTP/1.1 server (an epoll loop, limits against slow clients) for the console and `run`'s metrics
        // port, and the console (read model, pages) on it. The pages' HTML, CSS and JavaScript are files in
        // Sources/Console/Web, embedded at build time.
        .target(name: "HTTPServing", dependencies: ["CLinuxEvents"]),
        .target(name: "Console", dependencies: ["Codec", "HTTPServing", "Crypto", "Domain", "KafkaIO", "Runtime", "SQLiteIO"],
                plugins: ["EmbedWebFilesPlugin"]),
        .executableTarget(name: "EmbedWebFiles"),
        .plugin(name: "EmbedWebFilesPlugin", capability: .buildTool(), dependencies: ["EmbedWebFiles"],
                path: "Plugins/EmbedWebFiles"),

        // MARK: - Runtime and executable
        .target(name: "Runtime", dependencies: ["Domain", "Codec", "KafkaIO", "LZ4IO", "RocksDBIO", "HTTPServing"]),
        // Not shipped: a broker in memory that fails on purpose (tests), and the seeded simulation of
        // the runtime over it (`tripstream-sim`).
        .target(name: "BrokerSimulation", dependencies: ["Runtime", "KafkaIO"]),
        .target(
            name: "RuntimeSimulation",
            dependencies: ["BrokerSimulation", "Runtime", "Domain", "Codec", "KafkaIO", "Simulation"]),
        .executableTarget(
            name: "tripstream-sim", dependencies: ["RuntimeSimulation", "CommandLineKit"], path: "Sources/TripStreamSim"),
        // Fuzz targets for every decoder of untrusted bytes: a seeded mutation harness, or libFuzzer
        // entry points when built with -sanitize=fuzzer -DTRIPSTREAM_LIBFUZZER (scripts/fuzz.sh).
        .executableTarget(
            name: "tripstream-fuzz", dependencies: ["Codec", "Domain", "LZ4IO", "Runtime", "Simulation"],
            path: "Sources/TripStreamFuzz", swiftSettings: [.unsafeFlags(["-O"])]),
        .executableTarget(
            name: "tripstream",
            dependencies: [
                "Runtime", "Domain", "Codec", "KafkaIO", "LZ4IO", "RocksDBIO", "CommandLineKit", "Simulation", "CHeapStats",
                "Console", "HTTPServing",
            ]),

        // MARK: - Tests
        .testTarget(name: "DomainTests", dependencies: ["Domain", "Simulation"]),
        .testTarget(name: "CodecTests", dependencies: ["Codec", "Domain", "Simulation"]),
        .testTarget(name: "KafkaIOTests", dependencies: ["KafkaIO", "Simulation"]),
        .testTarget(name: "LZ4IOTests", dependencies: ["LZ4IO"]),
        .testTarget(name: "RocksDBIOTests", dependencies: ["RocksDBIO"]),
        .testTarget(name: "SQLiteIOTests", dependencies: ["SQLiteIO"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        .testTarget(
            name: "RuntimeTests",
            dependencies: [
                "Runtime", "Domain", "Codec", "KafkaIO", "LZ4IO", "RocksDBIO", "Simulation", "HTTPServing",
                "BrokerSimulation", "RuntimeSimulation",
            ]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Domain", "Codec"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Codec", "Console", "HTTPServing", "Crypto", "KafkaIO", "SQLiteIO"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
    ]
)

// -Ounchecked (no overflow or bounds traps) only where no byte from disk or the network is decoded:
// the simulator. Every target that does (the codecs, Domain with its history tail's decoder, the
// Kafka, LZ4 and RocksDB glue, the runtime's state decoders, the CLI) keeps Swift's checks, so a
// hostile record fails loudly instead of reading out of bounds.
let uncheckedTargets: Set<String> = ["Simulation"]
for target in package.targets where target.type != .system && target.type != .plugin && target.name != "CHeapStats" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    if uncheckedTargets.contains(target.name) {
        settings.append(.unsafeFlags(["-Ounchecked"], .when(configuration: .release)))
    }
    target.swiftSettings = settings
}
