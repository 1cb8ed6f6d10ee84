import AxiomCore

/// The domain `axiom.plugins`: why a file was not loaded as a plugin, one code per ``PluginRejection/Code``. A
/// host registers it in its registry when it is created, so a refusal handed to a pipeline is decided with its fate
/// and texts instead of as an unknown error.
extension PluginRejection: IdentifiableError {
    /// The domain of plugin refusals.
    public static let domain = "axiom.plugins"

    /// `axiom.plugins/<code>`.
    public var errorCode: ErrorCode { ErrorCode(Self.domain, code.name) }

    /// Every reason, with its texts. A refused plugin is the operator's to fix: a configuration error that the
    /// generic handlers end where it happens, the other plugins going on.
    package static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: Code.all.map { code in
            let (english, turkish) = texts(code)
            return CodeDefinition(
                domain, code.name, category: .configuration, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Plugin not loaded", message: "A plugin was not loaded: \(english).",
                        recovery: "Fix or remove the plugin file named in the log, then restart."),
                    "tr": .init(
                        title: "Eklenti yüklenmedi", message: "Bir eklenti yüklenmedi: \(turkish).",
                        recovery:
                            "Günlükte adı geçen eklenti dosyasını düzeltin ya da kaldırın, sonra yeniden başlatın."),
                ])
        })

    /// One refusal of every code.
    static let samples: [any Error] = Code.all.map { PluginRejection.refused($0, path: "x", detail: "x") }

    /// What went wrong, as the end of a sentence, in English and Turkish.
    private static func texts(_ code: Code) -> (String, String) {
        switch code {
        case .notFound: ("the file does not exist", "dosya yok")
        case .unreadable:
            ("the file cannot be read, or is not a regular file", "dosya okunamıyor ya da sıradan bir dosya değil")
        case .notAPlugin: ("the file is not an Axiom plugin", "dosya bir Axiom eklentisi değil")
        case .wrongPlatform: ("the file is built for another machine", "dosya başka bir makine için derlenmiş")
        case .unsafePermissions:
            (
                "the file or a folder above it may be changed by other users",
                "dosya ya da üstündeki bir klasör başka kullanıcılarca değiştirilebilir"
            )
        case .duplicateFile: ("the same file is already loaded", "aynı dosya zaten yüklü")
        case .scannerUnavailable:
            ("the plugin scanner could not be started", "eklenti tarayıcısı başlatılamadı")
        case .crashedInScanner:
            (
                "the plugin crashed or ended its process while it was checked",
                "eklenti denetlenirken çöktü ya da sürecini sonlandırdı"
            )
        case .timedOutInScanner:
            ("the plugin did not finish starting in time", "eklenti zamanında başlamayı bitirmedi")
        case .dlopenFailed: ("the system could not load the library", "sistem kitaplığı yükleyemedi")
        case .incompatibleABI:
            ("it was built for another plugin interface version", "başka bir eklenti arayüzü sürümü için derlenmiş")
        case .fingerprintMismatch:
            ("it was built with another header or toolchain", "başka bir başlık dosyası ya da derleyiciyle derlenmiş")
        case .initFailed: ("the plugin could not start", "eklenti başlayamadı")
        case .invalidPluginID: ("its identifier is malformed", "tanımlayıcısı hatalı")
        case .duplicatePluginID:
            ("a plugin with the same identifier is already loaded", "aynı tanımlayıcıya sahip bir eklenti zaten yüklü")
        case .invalidCatalog:
            (
                "its error catalog is malformed or ships texts that are not its own",
                "hata kataloğu hatalı ya da kendisine ait olmayan metinler içeriyor"
            )
        case .domainClash:
            (
                "another source already owns one of its error domains",
                "hata alanlarından birinin sahibi başka bir kaynak"
            )
        case .registrationRefused: ("its error catalog was refused", "hata kataloğu reddedildi")
        default: ("it was refused", "reddedildi")
        }
    }
}
