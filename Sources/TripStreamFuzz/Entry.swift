#if canImport(Glibc)
import Glibc
#endif

#if TRIPSTREAM_LIBFUZZER

// Built by `scripts/fuzz.sh --libfuzzer` with `-sanitize=fuzzer,address`. SwiftPM links every
// executable's `main` to its module's entry point, so libFuzzer's own `main` is not used: this
// one calls libFuzzer's driver, which then calls the target that TRIPSTREAM_FUZZ_TARGET names once
// per input. Every libFuzzer option works as usual (`-runs=`, `-seed=`, `-dict=`, corpus dirs…).

nonisolated(unsafe) private var selectedTarget = FuzzTarget.fix

/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *, size_t))`
/// (compiler-rt's FuzzerInterface.h): only pointers and an int, passed alike by Swift and C.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@main
enum FuzzMain {
    static func main() {
        let name = getenv("TRIPSTREAM_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            printError("set TRIPSTREAM_FUZZ_TARGET to one of: \(names)")
            exit(2)
        }
        selectedTarget = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runDriver(&argc, &argv, fuzzerTestOneInput))
    }
}

/// The callback, under the name libFuzzer's (unused, but still linked) `main` refers to: without
/// it the link fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#else

@main
enum FuzzMain {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            try FuzzCommand.run(arguments)
        } catch {
            printError("tripstream-fuzz: \(error)\n\n\(FuzzCommand.usage)")
            exit(2)
        }
    }
}

#endif
