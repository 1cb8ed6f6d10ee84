import Axiom
import AxiomTesting
import MetricsTestKit
import Testing

@Suite("Presentation queue")
struct PresentationQueueTests {
    func presentation(
        _ code: String, _ style: PresentationStyle, _ duration: Duration? = .seconds(3),
        category: ErrorCategory = .general
    ) -> ErrorPresentation {
        ErrorPresentation(
            code: ErrorCode("test", code), category: category, title: code, message: "\(code) failed.",
            recoverySuggestion: nil, rule: PresentationRule(style: style, duration: duration, feedback: .light),
            locale: "en")
    }

    @Test("it keeps three toasts and a fourth dismisses the oldest")
    func toastLimit() async {
        let queue = PresentationQueue(clock: ManualClock())
        var changes = queue.changes().makeAsyncIterator()
        let ids = ["A", "B", "C", "D"].map { queue.present(presentation($0, .toast)) }

        #expect(queue.toasts.map(\.id) == Array(ids[1...]))
        #expect(queue.toasts.map(\.presentation.title) == ["B", "C", "D"])
        var seen: [PresentationChange] = []
        for _ in 0..<5 { seen.append(await changes.next()!) }
        let shownIDs = seen.compactMap { change -> PresentationID? in
            if case .shown(let item) = change { item.id } else { nil }
        }
        #expect(shownIDs == ids)
        let dropped = seen.compactMap { change -> PresentationID? in
            if case .dismissed(let item, .replaced) = change { item.id } else { nil }
        }
        #expect(dropped == [ids[0]])

        // A fifth one drops the next oldest.
        queue.present(presentation("E", .toast))
        #expect(queue.toasts.map(\.presentation.title) == ["C", "D", "E"])
    }

    @Test("a toast expires after its duration on the injected clock")
    func expiry() async {
        let clock = ManualClock()
        let queue = PresentationQueue(clock: clock)
        var changes = queue.changes().makeAsyncIterator()
        let id = queue.present(presentation("A", .toast, .seconds(2)))
        _ = await changes.next()  // shown
        await clock.waitForSleepers(1)

        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleeperCount == 1)
        #expect(queue.visible.map(\.id) == [id])

        clock.advance(by: .milliseconds(1))
        let change = await changes.next()
        guard case .dismissed(let item, let reason) = change else {
            Issue.record("expected a dismissal, got \(String(describing: change))")
            return
        }
        #expect(item.id == id)
        #expect(reason == .expired)
        #expect(queue.visible.isEmpty)
    }

    @Test("modals and full-screen alerts stay until dismissed; the next waits its turn")
    func blocking() async {
        let clock = ManualClock()
        let queue = PresentationQueue(clock: clock)
        let credit = queue.present(presentation("credit", .modal, nil))
        let other = queue.present(presentation("other", .modal, nil))
        let auth = queue.present(presentation("auth", .fullScreen, nil))

        clock.advance(by: .seconds(3600))
        #expect(clock.sleeperCount == 0)
        #expect(queue.visible.map(\.id) == [credit])
        // The full-screen alert goes ahead of the waiting modal.
        #expect(queue.waiting.map(\.id) == [auth, other])

        queue.dismiss(credit)
        #expect(queue.visible.map(\.id) == [auth])
        queue.dismiss(auth)
        #expect(queue.visible.map(\.id) == [other])
        queue.dismiss(other)
        #expect(queue.visible.isEmpty)
    }

    @Test("a new banner replaces the old one; a dismissed toast stops its timer")
    func bannersAndDismissal() async {
        let clock = ManualClock()
        let queue = PresentationQueue(clock: clock)
        queue.present(presentation("first", .banner))
        let second = queue.present(presentation("second", .banner))
        #expect(queue.visible.map(\.id) == [second])

        let toast = queue.present(presentation("toast", .toast))
        await clock.waitForSleepers(2)
        queue.dismiss(toast)
        #expect(queue.toasts.isEmpty)
        #expect(queue.visible.map(\.id) == [second])
    }

    @Test("presentations shown are counted by style and category")
    func metrics() {
        let metrics = TestMetrics()
        let queue = PresentationQueue(clock: ManualClock(), metricsFactory: metrics)
        for code in ["A", "B", "C", "D"] { queue.present(presentation(code, .toast, category: .network)) }
        queue.present(presentation("E", .modal, nil, category: .credit))
        #expect(
            metrics.counterTotal(
                label: PresentationMetrics.shownLabel, dimensions: [("style", "toast"), ("category", "network")]) == 4)
        #expect(
            metrics.counterTotal(
                label: PresentationMetrics.shownLabel, dimensions: [("style", "modal"), ("category", "credit")]) == 1)
        #expect(
            metrics.counterTotal(
                label: PresentationMetrics.dismissedLabel, dimensions: [("style", "toast"), ("reason", "replaced")])
                == 1)
    }

    @Test("the presenting observer shows handled errors only, mapped in its locale")
    func observer() {
        let registry = ErrorRegistry()
        let queue = PresentationQueue(clock: ManualClock())
        let observer = PresentingObserver(mapper: ErrorMapper(registry: registry, locale: "tr"), queue: queue)
        let event = ErrorEvent(
            error: ClientError.invalidState, layer: .application, operation: "save", registry: registry)
        observer.observe(event, disposition: .recover)
        observer.observe(event, disposition: .ignore)
        #expect(queue.visible.isEmpty)
        observer.observe(event, disposition: .handle)
        #expect(queue.visible.map(\.presentation.message) == ["İstemci bu işleme izin vermeyen bir durumda."])
    }
}
