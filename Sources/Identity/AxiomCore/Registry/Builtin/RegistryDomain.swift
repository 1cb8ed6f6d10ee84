import AxiomCatalog

/// The domain `axiom.registry`: catalogs the registry refused. A plugin host or an application that registers a
/// catalog and hands the refusal to a pipeline gets its fate and texts from here.
extension RegistrationError: IdentifiableError {
    /// The domain of registration failures.
    package static let domain = "axiom.registry"

    /// `axiom.registry/<code>`.
    public var errorCode: ErrorCode { ErrorCode(Self.domain, code.name) }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            refusal(
                "domainClash",
                english: ("Two sources claim the same error domain.", "Two error catalogs clash"),
                turkish: ("İki kaynak aynı hata alanını sahipleniyor.", "İki hata kataloğu çakışıyor")),
            refusal(
                "duplicateCode",
                english: ("An error code is registered twice.", "Duplicate error code"),
                turkish: ("Bir hata kodu iki kez kaydediliyor.", "Yinelenen hata kodu")),
            refusal(
                "duplicateAlias",
                english: ("A numeric error code is used twice in one domain.", "Duplicate numeric code"),
                turkish: ("Bir sayısal hata kodu bir alanda iki kez kullanılıyor.", "Yinelenen sayısal kod")),
            refusal(
                "undeclaredDomain",
                english: ("A catalog describes a code outside the domains it declares.", "Code outside its catalog"),
                turkish: ("Bir katalog, bildirdiği alanların dışında bir kod tanımlıyor.", "Kataloğun dışında kod")),
            refusal(
                "duplicateSource",
                english: ("The same catalog source is registered twice.", "Catalog loaded twice"),
                turkish: ("Aynı katalog kaynağı iki kez kaydediliyor.", "Katalog iki kez yüklendi")),
            refusal(
                "invalidCatalog",
                english: ("An error catalog is malformed.", "Invalid error catalog"),
                turkish: ("Bir hata kataloğu bozuk.", "Geçersiz hata kataloğu")),
            refusal(
                "missingTexts",
                english: ("An error catalog lacks the English text of a message it references.", "Missing error texts"),
                turkish: ("Bir hata kataloğunda başvurduğu bir iletinin İngilizce metni eksik.", "Eksik hata metinleri")
            ),
        ])

    /// A refused catalog: a configuration error that the generic handlers end where it happens.
    private static func refusal(
        _ name: String, english: (message: String, title: String), turkish: (message: String, title: String)
    ) -> CodeDefinition {
        CodeDefinition(
            domain, name, category: .configuration, severity: .error, disposition: .handle,
            texts: [
                "en": .init(
                    title: english.title, message: english.message,
                    recovery: "Remove or fix the plugin or catalog named in the log, then restart."),
                "tr": .init(
                    title: turkish.title, message: turkish.message,
                    recovery:
                        "Günlükte adı geçen eklentiyi ya da kataloğu kaldırın veya düzeltin, sonra yeniden başlatın."),
            ])
    }

    /// One refusal of every kind, and a catalog refused for its texts.
    static let samples: [any Error] =
        [
            RegistrationError.Code.domainClash, .duplicateCode, .duplicateAlias, .undeclaredDomain, .duplicateSource,
            .invalidCatalog,
        ].map { RegistrationError(code: $0, source: "x", existingSource: nil, subject: "x") }
        + [CatalogLoadError(registration: nil, issues: [])]
}

extension CatalogLoadError: IdentifiableError {
    /// The registry's refusal when there is one, else `axiom.registry/missingTexts`: the message check refused it.
    package var errorCode: ErrorCode {
        registration?.errorCode ?? ErrorCode(RegistrationError.domain, "missingTexts")
    }
}

/// The domain `axiom.decoding`: payloads that are not error responses.
extension DomainError.DecodingFailure: IdentifiableError {
    /// The domain of decoding failures.
    package static let domain = "axiom.decoding"
    /// The identity of every decoding failure.
    package static let code = ErrorCode(domain, "notAnErrorResponse")

    public var errorCode: ErrorCode { Self.code }

    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            CodeDefinition(
                domain, "notAnErrorResponse", category: .api, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Unexpected answer",
                        message: "A service answered with something that is not an error we understand.",
                        recovery: "Try again. If it keeps happening, contact support."),
                    "tr": .init(
                        title: "Beklenmeyen yanıt", message: "Bir hizmet anlamadığımız bir yanıt verdi.",
                        recovery: "Yeniden deneyin. Sorun sürerse destek ekibiyle iletişime geçin."),
                ])
        ])

    static let samples: [any Error] = [DomainError.DecodingFailure(reason: "x")]
}
