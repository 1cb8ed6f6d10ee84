/// The built-in catalog's titles and its Turkish texts. The English messages are written beside the errors
/// (`BuiltinCatalog.swift`); this adds what presentation needs: a title per code and per category, in
/// English and Turkish, and a Turkish text for every English one.
enum BuiltinMessages {
    /// The built-in catalog's message tables, from its English messages.
    static func tables(english: [String: String]) -> [String: [String: String]] {
        var en = english
        en.merge(englishTitles) { own, _ in own }
        return ["en": en, "tr": turkish]
    }

    /// Titles of every category, of the general fallback, and of every built-in code.
    static let englishTitles: [String: String] = [
        "error.general.title": "Something went wrong",
        "error.validation.title": "Check your input",
        "error.network.title": "Connection problem",
        "error.api.title": "Service problem",
        "error.credit.title": "Not enough balance",
        "error.auth.title": "Sign-in required",
        "error.capability.title": "Not available",
        "error.state.title": "Unexpected state",
        "error.storage.title": "Storage problem",
        "error.configuration.title": "Configuration problem",
        "error.cancellation.title": "Cancelled",

        "error.axiom.capabilityUnavailable.title": "Not available",
        "error.axiom.stateCorruption.title": "App state problem",
        "error.axiom.architecturalViolation.title": "Internal error",
        "error.axiom.performanceThresholdExceeded.title": "Taking too long",
        "error.axiom.configurationError.title": "Configuration problem",
        "error.axiom.unknownError.title": "Something went wrong",
        "error.axiom.client.invalidState.title": "Not possible right now",
        "error.axiom.client.concurrencyViolation.title": "Busy",
        "error.axiom.client.updateFailed.title": "Update failed",
        "error.axiom.client.isolationBreach.title": "Internal error",
        "error.axiom.client.actorDeallocation.title": "Operation interrupted",
        "error.axiom.context.bindingFailure.title": "Display problem",
        "error.axiom.context.orchestrationError.title": "Task failed",
        "error.axiom.context.stateObservationFailed.title": "Out of sync",
        "error.axiom.context.uiUpdateFailed.title": "Display problem",
        "error.axiom.capability.capabilityUnavailable.title": "Not available",
        "error.axiom.capability.requirementNotMet.title": "Requirement not met",
        "error.axiom.capability.validationTimeout.title": "Timed out",
        "error.axiom.capability.executionFailed.title": "Action failed",
        "error.axiom.capability.fallbackUnavailable.title": "Not available",
        "error.swift.CancellationError.title": "Cancelled",
    ]

    /// Every built-in key in Turkish: messages, recovery suggestions and titles.
    static let turkish: [String: String] = [
        "error.general.unexpected": "Bir şeyler ters gitti. Lütfen yeniden deneyin.",
        "error.general.title": "Bir şeyler ters gitti",
        "error.validation.title": "Girdinizi kontrol edin",
        "error.network.title": "Bağlantı sorunu",
        "error.api.title": "Hizmet sorunu",
        "error.credit.title": "Yetersiz bakiye",
        "error.auth.title": "Oturum açmanız gerekiyor",
        "error.capability.title": "Kullanılamıyor",
        "error.state.title": "Beklenmeyen durum",
        "error.storage.title": "Depolama sorunu",
        "error.configuration.title": "Yapılandırma sorunu",
        "error.cancellation.title": "İptal edildi",

        "error.axiom.capabilityUnavailable": "Gereken bir özellik kullanılamıyor.",
        "error.axiom.capabilityUnavailable.recovery":
            "Kaynağın kullanılabilir olduğunu kontrol edin ve yeniden deneyin.",
        "error.axiom.capabilityUnavailable.title": "Kullanılamıyor",
        "error.axiom.stateCorruption": "Uygulamanın durumu bozuldu.",
        "error.axiom.stateCorruption.recovery": "Sağlam bir duruma dönmek için uygulamayı yeniden başlatın.",
        "error.axiom.stateCorruption.title": "Uygulama durumu sorunu",
        "error.axiom.architecturalViolation": "Bir iç kural ihlal edildi.",
        "error.axiom.architecturalViolation.recovery": "Bunu geliştiricilere bildirin; bu bir yazılım hatası.",
        "error.axiom.architecturalViolation.title": "İç hata",
        "error.axiom.performanceThresholdExceeded": "Bu işlem olması gerekenden uzun sürüyor.",
        "error.axiom.performanceThresholdExceeded.recovery": "Diğer işleri kapatın ya da daha sonra yeniden deneyin.",
        "error.axiom.performanceThresholdExceeded.title": "Çok uzun sürüyor",
        "error.axiom.configurationError": "Yapılandırma geçersiz.",
        "error.axiom.configurationError.recovery": "Yapılandırmayı düzeltip uygulamayı yeniden başlatın.",
        "error.axiom.configurationError.title": "Yapılandırma sorunu",
        "error.axiom.unknownError": "Bir şeyler ters gitti. Lütfen yeniden deneyin.",
        "error.axiom.unknownError.recovery": "Yeniden deneyin. Sorun sürerse destek ekibiyle iletişime geçin.",
        "error.axiom.unknownError.title": "Bir şeyler ters gitti",

        "error.axiom.client.invalidState": "İstemci bu işleme izin vermeyen bir durumda.",
        "error.axiom.client.invalidState.recovery": "İstemciyi sağlam bir duruma sıfırlayıp yeniden deneyin.",
        "error.axiom.client.invalidState.title": "Şu anda yapılamıyor",
        "error.axiom.client.concurrencyViolation": "İki işlem istemcinin durumunu aynı anda değiştirdi.",
        "error.axiom.client.concurrencyViolation.recovery": "İşlemi yeniden deneyin; diğeri bittikten sonra çalışacak.",
        "error.axiom.client.concurrencyViolation.title": "Meşgul",
        "error.axiom.client.updateFailed": "İstemcinin durumu güncellenemedi.",
        "error.axiom.client.updateFailed.recovery": "Güncellemeyi yeniden deneyin.",
        "error.axiom.client.updateFailed.title": "Güncelleme başarısız",
        "error.axiom.client.isolationBreach": "İstemcinin durumuna kendi aktörünün dışından erişildi.",
        "error.axiom.client.isolationBreach.recovery": "Bunu geliştiricilere bildirin; bu bir yazılım hatası.",
        "error.axiom.client.isolationBreach.title": "İç hata",
        "error.axiom.client.actorDeallocation": "Bir işlem sürerken istemci serbest bırakıldı.",
        "error.axiom.client.actorDeallocation.recovery": "İşlemleri sürdükçe istemciyi bellekte tutun.",
        "error.axiom.client.actorDeallocation.title": "İşlem yarıda kaldı",

        "error.axiom.context.bindingFailure": "Ekranın bir bölümü verisine bağlanamadı.",
        "error.axiom.context.bindingFailure.recovery": "Ekranı yeniden açın.",
        "error.axiom.context.bindingFailure.title": "Görüntüleme sorunu",
        "error.axiom.context.orchestrationError": "Bu görevin parçaları birlikte çalışamadı.",
        "error.axiom.context.orchestrationError.recovery": "İşlemi yeniden deneyin.",
        "error.axiom.context.orchestrationError.title": "Görev başarısız",
        "error.axiom.context.stateObservationFailed": "Bağlam, istemcilerinin durumunu izleyemez oldu.",
        "error.axiom.context.stateObservationFailed.recovery": "Durumu yeniden izlemek için ekranı yeniden açın.",
        "error.axiom.context.stateObservationFailed.title": "Eşitleme sorunu",
        "error.axiom.context.uiUpdateFailed": "Ekran güncellenemedi.",
        "error.axiom.context.uiUpdateFailed.recovery": "Ekranı yeniden açın.",
        "error.axiom.context.uiUpdateFailed.title": "Görüntüleme sorunu",

        "error.axiom.capability.capabilityUnavailable": "Gereken bir özellik kullanılamıyor.",
        "error.axiom.capability.capabilityUnavailable.recovery": "Kaynağı kullanılabilir hale getirip yeniden deneyin.",
        "error.axiom.capability.capabilityUnavailable.title": "Kullanılamıyor",
        "error.axiom.capability.requirementNotMet": "Bu işlemin bir gereksinimi karşılanmıyor.",
        "error.axiom.capability.requirementNotMet.recovery": "Gereksinimi karşılayıp yeniden deneyin.",
        "error.axiom.capability.requirementNotMet.title": "Gereksinim karşılanmadı",
        "error.axiom.capability.validationTimeout": "Özelliğin denetimi çok uzun sürdü.",
        "error.axiom.capability.validationTimeout.recovery": "Bağlantınızı kontrol edip yeniden deneyin.",
        "error.axiom.capability.validationTimeout.title": "Zaman aşımı",
        "error.axiom.capability.executionFailed": "Gereken bir özellik başarısız oldu.",
        "error.axiom.capability.executionFailed.recovery": "Yeniden deneyin.",
        "error.axiom.capability.executionFailed.title": "İşlem başarısız",
        "error.axiom.capability.fallbackUnavailable": "Özellik kullanılamıyor ve yerine geçecek bir yedek yok.",
        "error.axiom.capability.fallbackUnavailable.recovery": "Kaynağı kullanılabilir hale getirip yeniden deneyin.",
        "error.axiom.capability.fallbackUnavailable.title": "Kullanılamıyor",

        "error.swift.CancellationError": "İşlem iptal edildi.",
        "error.swift.CancellationError.title": "İptal edildi",
    ]
}
