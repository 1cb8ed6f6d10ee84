import AxiomCore
import CoreMetrics
import Synchronization

/// The error presentations on screen: at most three toasts (a fourth dismisses the oldest), one banner,
/// one modal or full-screen alert at a time (the others wait), and expiry on an injected clock.
///
/// A UI renders ``visible`` and follows ``changes()``; tests inject a `ManualClock` and advance it.
///
/// What is on screen, by style:
///
/// ```
///   toast       ─▶ up to `maxToasts` at once; one more dismisses the oldest (reason .replaced)
///   banner      ─▶ one at a time; a new one replaces the old (reason .replaced)
///   inline      ─▶ beside their fields, any number
///   modal       ─┐ one at a time, the rest wait in order (full screen ahead of modals);
///   fullScreen  ─┘ without a duration they stay until `dismiss`
/// ```
///
/// Anything with a duration expires on the injected clock (reason .expired).
public final class PresentationQueue: Sendable {
    /// The clock durations run on.
    package let clock: RuntimeClock
    /// How many toasts may be shown at once.
    package let maxToasts: Int
    private let metrics: PresentationMetrics?
    private let state = Mutex(State())

    private struct State {
        var nextID: UInt64 = 0
        var toasts: [ShownPresentation] = []
        var banner: ShownPresentation?
        var inline: [ShownPresentation] = []
        var blocking: ShownPresentation?
        var waiting: [ShownPresentation] = []
        var timers: [PresentationID: Task<Void, Never>] = [:]
        var subscribers: [UInt64: AsyncStream<PresentationChange>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    /// A queue whose durations run on `clock`, showing at most `maxToasts` toasts (three by default).
    ///
    /// With a `metricsFactory` (`MetricsSystem.factory` for the bootstrapped one), the queue counts through
    /// swift-metrics `axiom_presentations_shown_total{style, category}`, presentations that reached the screen, and
    /// `axiom_presentations_dismissed_total{style, reason}`, how they left it (expired, replaced, dismissed).
    public init(
        clock: some Clock<Duration> = ContinuousClock(), maxToasts: Int = 3,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.clock = RuntimeClock(clock)
        self.maxToasts = max(1, maxToasts)
        self.metrics = metricsFactory.map { PresentationMetrics(factory: $0) }
    }

    deinit {
        state.withTrackedLock { state in
            for timer in state.timers.values { timer.cancel() }
            for subscriber in state.subscribers.values { subscriber.finish() }
        }
    }

    /// Everything on screen: the modal or full-screen alert, the banner, the toasts oldest first, the
    /// inline messages. Waiting alerts are not included.
    public var visible: [ShownPresentation] {
        state.withTrackedLock { state in
            [state.blocking, state.banner].compactMap { $0 } + state.toasts + state.inline
        }
    }

    /// The toasts on screen, oldest first.
    package var toasts: [ShownPresentation] { state.withTrackedLock { $0.toasts } }

    /// Modals and full-screen alerts waiting for the one on screen to be dismissed, next first.
    package var waiting: [ShownPresentation] { state.withTrackedLock { $0.waiting } }

    /// A stream of every change from now on. Each call gives an independent stream.
    public func changes() -> AsyncStream<PresentationChange> {
        let (stream, continuation) = AsyncStream<PresentationChange>.makeStream()
        let id = state.withTrackedLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withTrackedLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Shows a presentation, or queues it behind the alert on screen.
    @discardableResult
    public func present(_ presentation: ErrorPresentation) -> PresentationID {
        var changes: [PresentationChange] = []
        let id = state.withTrackedLock { state in
            state.nextID += 1
            let item = ShownPresentation(id: PresentationID(value: state.nextID), presentation: presentation)
            switch presentation.style {
            case .toast:
                state.toasts.append(item)
                while state.toasts.count > maxToasts {
                    let oldest = state.toasts.removeFirst()
                    end(oldest, .replaced, &state, &changes)
                }
                show(item, &state, &changes)
            case .banner:
                if let old = state.banner { end(old, .replaced, &state, &changes) }
                state.banner = item
                show(item, &state, &changes)
            case .inline:
                state.inline.append(item)
                show(item, &state, &changes)
            case .modal, .fullScreen:
                if state.blocking == nil {
                    state.blocking = item
                    show(item, &state, &changes)
                } else if presentation.style == .fullScreen {
                    let index =
                        state.waiting.firstIndex { $0.presentation.style != .fullScreen } ?? state.waiting.endIndex
                    state.waiting.insert(item, at: index)
                } else {
                    state.waiting.append(item)
                }
            }
            return item.id
        }
        report(changes)
        return id
    }

    /// Dismisses a presentation, on screen or waiting. The next waiting alert, if any, is shown.
    public func dismiss(_ id: PresentationID) {
        remove(id, reason: .dismissed)
    }

    private func expire(_ id: PresentationID) {
        remove(id, reason: .expired)
    }

    private func remove(_ id: PresentationID, reason: DismissReason) {
        var changes: [PresentationChange] = []
        state.withTrackedLock { state in
            if let index = state.toasts.firstIndex(where: { $0.id == id }) {
                end(state.toasts.remove(at: index), reason, &state, &changes)
            } else if let index = state.inline.firstIndex(where: { $0.id == id }) {
                end(state.inline.remove(at: index), reason, &state, &changes)
            } else if let banner = state.banner, banner.id == id {
                state.banner = nil
                end(banner, reason, &state, &changes)
            } else if let blocking = state.blocking, blocking.id == id {
                state.blocking = nil
                end(blocking, reason, &state, &changes)
                if !state.waiting.isEmpty {
                    let next = state.waiting.removeFirst()
                    state.blocking = next
                    show(next, &state, &changes)
                }
            } else if let index = state.waiting.firstIndex(where: { $0.id == id }) {
                // It never reached the screen: it leaves silently.
                state.waiting.remove(at: index)
            }
        }
        report(changes)
    }

    // Both run under the lock: subscribers see changes in the order the state took them.
    private func show(_ item: ShownPresentation, _ state: inout State, _ changes: inout [PresentationChange]) {
        if let duration = item.presentation.duration {
            let clock = self.clock
            let id = item.id
            state.timers[id] = Task { [weak self] in
                do {
                    try await clock.sleep(for: duration)
                } catch {
                    return  // dismissed before it expired
                }
                self?.expire(id)
            }
        }
        let change = PresentationChange.shown(item)
        for subscriber in state.subscribers.values { subscriber.yield(change) }
        changes.append(change)
    }

    private func end(
        _ item: ShownPresentation, _ reason: DismissReason, _ state: inout State,
        _ changes: inout [PresentationChange]
    ) {
        state.timers.removeValue(forKey: item.id)?.cancel()
        let change = PresentationChange.dismissed(item, reason: reason)
        for subscriber in state.subscribers.values { subscriber.yield(change) }
        changes.append(change)
    }

    private func report(_ changes: [PresentationChange]) {
        guard let metrics else { return }
        for change in changes {
            switch change {
            case .shown(let item): metrics.shown(item.presentation)
            case .dismissed(let item, let reason): metrics.dismissed(item.presentation, reason: reason)
            }
        }
    }
}
