import enum Runtime.WallClock
import Simulation

#if canImport(Glibc)
import Glibc
#endif

/// The command line of the built-in harness (the build without libFuzzer).
enum FuzzCommand {
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        usage: tripstream-fuzz run [--targets all|NAME,…] [--inputs N] [--seconds S] [--seed N] [--root DIR]
                                   [--artifacts DIR]
               tripstream-fuzz seeds --out DIR [--root DIR]
               tripstream-fuzz replay TARGET FILE…
               tripstream-fuzz list

          run     mutate each target's seeds --inputs times (default 100000; the same seed gives the
                  same inputs), or for --seconds each; a crash or a broken round trip aborts and
                  writes the input to --artifacts (default .) as crash-TARGET-HASH
          seeds   write the seed corpora (DIR/TARGET/) and libFuzzer dictionaries (DIR/json.dict,
                  DIR/binary.dict)
          replay  run a target on files (e.g. a crash a fuzz run wrote)
          --root  the repository, for samples/porto and schemas/examples seeds (default .)

        """

    static func run(_ arguments: [String]) throws {
        guard let command = arguments.first else { throw UsageError(description: "no command") }
        var options: [String: String] = [:]
        var positional: [String] = []
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" {
                print(usage, terminator: "")
                return
            }
            if argument.hasPrefix("--") {
                guard let value = rest.popFirst() else { throw UsageError(description: "\(argument) needs a value") }
                options[String(argument.dropFirst(2))] = value
            } else {
                positional.append(argument)
            }
        }
        func integer(_ name: String, _ fallback: Int) throws -> Int {
            guard let text = options.removeValue(forKey: name) else { return fallback }
            guard let value = Int(String(text.filter { $0 != "_" })), value >= 0 else {
                throw UsageError(description: "--\(name) must be a non-negative integer, got \(text)")
            }
            return value
        }
        let root = options.removeValue(forKey: "root") ?? "."
        switch command {
        case "run":
            var targets = FuzzTarget.allCases
            if let list = options.removeValue(forKey: "targets"), list != "all" {
                targets = try list.split(separator: ",").map { name in
                    guard let target = FuzzTarget(rawValue: String(name)) else {
                        throw UsageError(description: "unknown target \(name)")
                    }
                    return target
                }
            }
            let inputs = try integer("inputs", 100_000)
            let seconds = try options.removeValue(forKey: "seconds").map { text in
                guard let value = Double(text), value > 0 else {
                    throw UsageError(description: "--seconds must be positive, got \(text)")
                }
                return value
            }
            let seed = UInt64(try integer("seed", 1))
            let artifacts = options.removeValue(forKey: "artifacts") ?? "."
            try rejectLeftovers(options, positional)
            Harness.run(
                targets: targets, inputs: inputs, seconds: seconds, seed: seed, root: root, artifacts: artifacts)
        case "seeds":
            guard let out = options.removeValue(forKey: "out") else { throw UsageError(description: "seeds needs --out") }
            try rejectLeftovers(options, positional)
            try writeSeeds(to: out, root: root)
        case "replay":
            guard let name = positional.first, let target = FuzzTarget(rawValue: name) else {
                throw UsageError(description: "replay needs a target and files")
            }
            try rejectLeftovers(options, [])
            for path in positional.dropFirst() {
                guard let bytes = Seeds.read(path) else { throw UsageError(description: "cannot read \(path)") }
                print("\(path): \(target.run(bytes) ? "decoded" : "rejected"), no crash")
            }
        case "list":
            for target in FuzzTarget.allCases { print("\(target.rawValue)\t\(target.decoder)") }
        default:
            throw UsageError(description: "unknown command \(command)")
        }
    }

    private static func rejectLeftovers(_ options: [String: String], _ positional: [String]) throws {
        if let name = options.keys.sorted().first { throw UsageError(description: "unknown option --\(name)") }
        if let extra = positional.first { throw UsageError(description: "unexpected argument \(extra)") }
    }

    private static func writeSeeds(to directory: String, root: String) throws {
        let seeds = Seeds.all(root: root)
        try Files.makeDirectory(directory)
        for target in FuzzTarget.allCases {
            try Files.makeDirectory("\(directory)/\(target.rawValue)")
            for (i, input) in (seeds[target] ?? []).enumerated() {
                try Files.write(input, to: "\(directory)/\(target.rawValue)/seed-\(i)")
            }
        }
        try Files.write(Array(Tokens.libFuzzerText(Tokens.json).utf8), to: "\(directory)/json.dict")
        try Files.write(Array(Tokens.libFuzzerText(Tokens.binary).utf8), to: "\(directory)/binary.dict")
        let counts = FuzzTarget.allCases.map { "\($0.rawValue) \(seeds[$0]?.count ?? 0)" }
        print("seeds written to \(directory): \(counts.joined(separator: ", "))")
    }
}

/// The built-in mutation harness: seeds, then deterministic mutations of the seeds and of the
/// mutants that decoded (so mutations also build on inputs that got past the first checks).
enum Harness {
    /// Inputs at most this long (libFuzzer's default too); long-run mutations may still hit the
    /// 64 KiB record limit on the way there.
    static let maxLength = 72 * 1024

    static func run(targets: [FuzzTarget], inputs: Int, seconds: Double?, seed: UInt64, root: String, artifacts: String) {
        let seeds = Seeds.all(root: root)
        CrashCapture.install()
        var total = 0
        let started = WallClock.monotonic()
        for target in targets {
            let corpus = seeds[target] ?? []
            CrashCapture.setArtifact("\(artifacts)/crash-\(target.rawValue)")
            var pool = corpus.isEmpty ? [[UInt8]()] : corpus
            let seedCount = pool.count
            var mutator = Mutator(
                seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(FuzzTarget.allCases.firstIndex(of: target)!),
                json: target.isJSON, maxLength: maxLength)
            var count = 0
            var decoded = 0
            let start = WallClock.monotonic()
            let deadline = seconds.map { start + $0 }
            func runOne(_ input: [UInt8]) -> Bool {
                count += 1
                let ok = input.withUnsafeBytes { buffer in
                    CrashCapture.current = buffer
                    return target.run(buffer)
                }
                if ok { decoded += 1 }
                return ok
            }
            for input in corpus { _ = runOne(input) }
            while deadline == nil ? count < inputs : WallClock.monotonic() < deadline! || count < corpus.count {
                for _ in 0..<256 where deadline != nil || count < inputs {
                    let base = pool[mutator.below(pool.count)]
                    let other = pool[mutator.below(pool.count)]
                    let input = mutator.mutate(base, other: other)
                    guard runOne(input), input.count <= 8_192 else { continue }
                    // Keep some (small) decoding mutants: the seeds stay, the rest rotates.
                    if pool.count < seedCount + 2_000 {
                        pool.append(input)
                    } else {
                        pool[seedCount + mutator.below(pool.count - seedCount)] = input
                    }
                }
            }
            CrashCapture.current = nil
            let elapsed = WallClock.monotonic() - start
            total += count
            let share = count == 0 ? 0 : Double(decoded) * 100 / Double(count)
            print(
                "\(pad(target.rawValue, 13)) \(pad(grouped(count), 11, left: true)) inputs  "
                    + "\(pad(format(share, 1), 5, left: true))% decoded  \(pad(format(elapsed, 1), 7, left: true)) s  "
                    + "\(pad(grouped(Int(Double(count) / max(elapsed, 1e-9))), 9, left: true))/s  0 crashes")
            fflush(nil)  // before the next target, which may crash
        }
        print("fuzz: \(targets.count) targets, \(grouped(total)) inputs in \(format(WallClock.monotonic() - started, 1)) s, 0 crashes")
    }

    private static func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return left ? fill + s : s + fill
    }

    private static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var i = digits.count - 3
        while i > 0 {
            digits.insert(",", at: i)
            i -= 3
        }
        return String(digits)
    }

    private static func format(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = String(scaled / Int(scale))
        guard decimals > 0 else { return whole }
        let fraction = String(scaled % Int(scale))
        return whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

/// On a crash (a trap, an abort, a fault), writes the input being run to the artifact file and
/// names it on stderr, then lets the previous handler (the Swift runtime's backtrace) run.
enum CrashCapture {
    nonisolated(unsafe) static var current: UnsafeRawBufferPointer?
    /// The artifact's path: a prefix, then room for `-` and 16 hex digits of the input's hash.
    nonisolated(unsafe) private static var name = UnsafeMutablePointer<CChar>.allocate(capacity: 4_096)
    nonisolated(unsafe) private static var prefixLength = 0
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 64)
    static let signals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE]

    static func setArtifact(_ prefix: String) {
        let bytes = Array(prefix.utf8.prefix(4_000))
        for (i, b) in bytes.enumerated() { name[i] = CChar(bitPattern: b) }
        prefixLength = bytes.count
        name[prefixLength] = 0
    }

    static func install() {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in CrashCapture.handle(signal) }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// Only async-signal-safe calls (open, write, close, sigaction) and no allocation.
    private static func handle(_ signal: Int32) {
        if let input = current {
            current = nil
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            for b in input { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
            var n = prefixLength
            name[n] = CChar(UInt8(ascii: "-"))
            n += 1
            for shift in stride(from: 60, through: 0, by: -4) {
                let digit = Int((hash >> UInt64(shift)) & 0xF)
                name[n] = CChar(UInt8(digit < 10 ? 48 + digit : 87 + digit))
                n += 1
            }
            name[n] = 0
            let fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            if fd >= 0 {
                if let base = input.baseAddress { _ = write(fd, base, input.count) }
                close(fd)
            }
            let message: StaticString = "\ntripstream-fuzz: crash; the input is in "
            _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
            _ = write(2, name, n)
            _ = write(2, "\n", 1)
        }
        // Back to the previous handler; returning re-raises a trap, and abort() raises again itself.
        sigaction(signal, previous + Int(signal), nil)
    }
}


enum Files {
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw FuzzCommand.UsageError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else {
            throw FuzzCommand.UsageError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        guard bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file) }) == bytes.count else {
            throw FuzzCommand.UsageError(description: "cannot write \(path)")
        }
    }
}
