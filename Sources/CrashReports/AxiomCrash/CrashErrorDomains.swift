import AxiomCore
import AxiomSymbolication

/// The crash reporter's domains: `axiom.crash` (``CrashReporterError`` and ``RawReportError``) and
/// `axiom.symbolication` (`SymbolicationError`, whose module does not depend on the core and is identified here).
///
/// ``CrashReporter/install(directory:afterReport:)`` and ``CrashReportProcessor`` register both in `ErrorRegistry.shared`
/// when they are first used; an application deciding through a registry of its own calls ``register(in:)``.
public enum CrashErrorDomains {
    /// The domain of the crash reporter's own failures.
    package static let crash = BuiltinDomain(
        name: RawReportError.domain,
        codes: [
            code(
                CrashReporterError.Code.cannotCreateDirectory, .storage, .error,
                english: ("The crash report folder could not be created.", "Crash reports unavailable"),
                turkish: ("Çökme raporu klasörü oluşturulamadı.", "Çökme raporları kullanılamıyor")),
            code(
                CrashReporterError.Code.cannotUseDirectory, .storage, .error,
                english: ("The crash report folder cannot be written.", "Crash reports unavailable"),
                turkish: ("Çökme raporu klasörüne yazılamıyor.", "Çökme raporları kullanılamıyor")),
            code(
                CrashReporterError.Code.cannotPrepareThread, .state, .error,
                english: ("A thread could not be prepared for crash reports.", "Crash reports incomplete"),
                turkish: ("Bir iş parçacığı çökme raporlarına hazırlanamadı.", "Çökme raporları eksik")),
            code(
                CrashReporterError.Code.installFailed, .configuration, .error,
                english: ("The crash reporter could not be installed.", "Crash reports unavailable"),
                turkish: ("Çökme raporlayıcısı kurulamadı.", "Çökme raporları kullanılamıyor")),
        ]
            + [
                RawReportError.Code.unreadable, .empty, .tooLarge, .truncated, .notAReport, .unsupportedVersion,
                .malformed,
            ].map { reason in
                // A damaged report is set aside and the others are processed: worth a warning, not more.
                code(
                    reason, .storage, .warning,
                    english: ("A crash report is damaged and was set aside.", "Crash report damaged"),
                    turkish: ("Bir çökme raporu bozuk ve bir kenara ayrıldı.", "Çökme raporu bozuk"))
            })

    /// The domain of addresses and modules that could not be symbolicated.
    package static let symbolication = BuiltinDomain(
        name: "axiom.symbolication",
        codes: [
            (
                "fileNotFound", "A program file named in a crash report is missing.",
                "Bir çökme raporunda adı geçen bir program dosyası yok."
            ),
            (
                "unreadableFile", "A program file named in a crash report cannot be read.",
                "Bir çökme raporunda adı geçen bir program dosyası okunamıyor."
            ),
            (
                "notELF", "A file named in a crash report is not a program file.",
                "Bir çökme raporunda adı geçen dosya bir program dosyası değil."
            ),
            (
                "unsupportedELF", "A program file is of a kind that cannot be read.",
                "Bir program dosyası okunamayan türde."
            ),
            ("malformedELF", "A program file is damaged.", "Bir program dosyası bozuk."),
            (
                "noSymbolInformation", "No names are known for an address in a crash report.",
                "Bir çökme raporundaki bir adresin adı bilinmiyor."
            ),
            (
                "dwarfError", "The debug information of a program file is damaged.",
                "Bir program dosyasının hata ayıklama bilgisi bozuk."
            ),
            (
                "buildIDMismatch",
                "A program file was replaced since the crash, and its debug information was not found.",
                "Program dosyası çökmeden sonra değişmiş ve hata ayıklama bilgisi bulunamadı."
            ),
        ].map { name, english, turkish in
            CodeDefinition(
                "axiom.symbolication", name, category: .storage, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Crash report incomplete", message: english,
                        recovery: "Add the program's debug files with `axiom symbols add`."),
                    "tr": .init(
                        title: "Çökme raporu eksik", message: turkish,
                        recovery: "Programın hata ayıklama dosyalarını `axiom symbols add` ile ekleyin."),
                ])
        })

    /// The code of a symbolication error: `axiom.symbolication/<code>`.
    package static func errorCode(of error: SymbolicationError) -> ErrorCode {
        ErrorCode(symbolication.name, String(describing: error.code))
    }

    /// Registers both domains in `registry`, and teaches it the identity of `SymbolicationError`. Idempotent.
    ///
    /// - Throws: `RegistrationError` when another source already owns one of the domains' names.
    public static func register(in registry: ErrorRegistry = .shared) throws(RegistrationError) {
        try registry.registerFrameworkDomain(crash)
        if try registry.registerFrameworkDomain(symbolication) {
            registry.registerIdentity(of: SymbolicationError.self) { errorCode(of: $0) }
        }
    }

    /// One error of every code of each domain, for the tests that hold the types and the domains to each other.
    static let samples: [(domain: BuiltinDomain, errors: [any Error])] = [
        (
            crash,
            [
                CrashReporterError.cannotCreateDirectory(path: "x", errno: 1),
                CrashReporterError.cannotUseDirectory(path: "x", errno: 1),
                CrashReporterError.cannotPrepareThread(errno: 1),
                CrashReporterError.installFailed(step: "x", errno: 1),
                RawReportError.unreadable(path: "x", errno: 1), RawReportError.empty(),
                RawReportError.tooLarge(size: 2, limit: 1), RawReportError.truncated(expected: 2, actual: 1),
                RawReportError.truncatedBeforeEndMarker(), RawReportError.notAReport(),
                RawReportError.unsupportedVersion(9), RawReportError.malformed(headerLength: 1),
                RawReportError.malformed(declaredLength: 1, actualLength: 2),
                RawReportError.malformed(count: "x", value: 2, limit: 1),
                RawReportError.malformed(sectionsNeed: 2, declaredLength: 1),
                RawReportError.malformed(module: 0, reason: "x"), RawReportError.malformed(record: 0, reason: "x"),
            ]
        ),
        (
            symbolication,
            [
                SymbolicationError.fileNotFound("x"), .unreadable("x", "x"), .notELF("x"), .unsupportedELF("x", "x"),
                .malformedELF("x", "x"), .noSymbol("x", address: 1, hasDebugInfo: false), .dwarf("x", "x", "x"),
                .buildIDMismatch("x", fileBuildID: nil, report: "x"),
            ] as [SymbolicationError]
        ),
    ]

    private static func code(
        _ code: some CustomStringConvertible, _ category: ErrorCategory, _ severity: ErrorSeverity,
        english: (message: String, title: String), turkish: (message: String, title: String)
    ) -> CodeDefinition {
        CodeDefinition(
            RawReportError.domain, code.description, category: category, severity: severity, disposition: .handle,
            texts: [
                "en": .init(title: english.title, message: english.message),
                "tr": .init(title: turkish.title, message: turkish.message),
            ])
    }
}
