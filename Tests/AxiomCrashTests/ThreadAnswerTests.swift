import CAxiomCrash
import Testing

/// The crashed thread asks every other thread for its stack and waits at most half a second; a report's length is
/// planned from the answers, then the report is written from them. A thread that was still unwinding at the deadline
/// once finished afterwards and turned its abandoned slot back into an answer, between the plan and the writing: the
/// report then held more bytes than it declared, and was refused as malformed. These run the protocol's steps in
/// each order a late thread can take, since such a thread cannot be made to answer late on demand.
@Suite("Another thread's answer to a crash is settled once at the deadline")
struct ThreadAnswerTests {
    static let requested = Int32(AXIOM_CRASH_ANSWER_REQUESTED)
    static let running = Int32(AXIOM_CRASH_ANSWER_RUNNING)
    static let done = Int32(AXIOM_CRASH_ANSWER_DONE)
    static let abandoned = Int32(AXIOM_CRASH_ANSWER_ABANDONED)

    @Test("an answer finished before the deadline is read")
    func anAnswerInTimeIsRead() {
        var state = Self.requested
        #expect(axiom_crash_answer_begin(&state) == 1)
        #expect(axiom_crash_answer_finish(&state) == 1)
        #expect(axiom_crash_answer_settle(&state) == Self.done)
        #expect(state == Self.done)
    }

    @Test("a thread still unwinding at the deadline stays unanswered when it finishes")
    func anAnswerFinishedAfterTheDeadlineStaysAbandoned() {
        var state = Self.requested
        #expect(axiom_crash_answer_begin(&state) == 1)
        #expect(axiom_crash_answer_settle(&state) == Self.abandoned)
        #expect(axiom_crash_answer_finish(&state) == 0)
        #expect(state == Self.abandoned)
        #expect(axiom_crash_answer_settle(&state) == Self.abandoned)
    }

    @Test("a thread that takes the signal after the deadline does not begin")
    func aSignalAfterTheDeadlineIsNotAnswered() {
        var state = Self.requested
        #expect(axiom_crash_answer_settle(&state) == Self.abandoned)
        #expect(axiom_crash_answer_begin(&state) == 0)
        #expect(axiom_crash_answer_finish(&state) == 0)
        #expect(state == Self.abandoned)
    }

    @Test("a thread that has not begun by the first deadline never begins; one already unwinding goes on")
    func closingAbandonsOnlyAThreadThatHasNotBegun() {
        var waiting = Self.requested
        axiom_crash_answer_close(&waiting)
        #expect(waiting == Self.abandoned)
        #expect(axiom_crash_answer_begin(&waiting) == 0)
        var unwinding = Self.requested
        #expect(axiom_crash_answer_begin(&unwinding) == 1)
        axiom_crash_answer_close(&unwinding)
        #expect(unwinding == Self.running)
        #expect(axiom_crash_answer_finish(&unwinding) == 1)
        #expect(axiom_crash_answer_settle(&unwinding) == Self.done)
    }

    @Test("a slot answers once: a second signal to the same thread neither begins nor finishes it again")
    func aSlotAnswersOnce() {
        var state = Self.requested
        #expect(axiom_crash_answer_begin(&state) == 1)
        #expect(axiom_crash_answer_begin(&state) == 0)
        #expect(state == Self.running)
        #expect(axiom_crash_answer_finish(&state) == 1)
        #expect(axiom_crash_answer_finish(&state) == 0)
        #expect(axiom_crash_answer_settle(&state) == Self.done)
    }
}
