package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The count of lost events that JMX, jcmd and the CLI show while a session runs and that its trace ends with. */
class LiveLostEventCountTest {
    private static ActiveSession session() {
        return new ActiveSession(0, 1, false, null, null, new SequencePool(new Sequence[0], 0), null);
    }

    @Test
    void aWriterClosingWhileTheOpenWritersAreScannedIsNotCountedTwice() {
        ActiveSession session = session();
        long lost = session.lostEvents(() -> {
            // The scan found the writer open with 100 drops; it closes before the scan ends.
            session.writerClosed(100);
            return 100;
        });
        assertEquals(100, lost);
        assertEquals(100, session.lostEvents(() -> 0), "after the close, from the closed writers' sum");
    }

    @Test
    void aWriterThatLeftTheOpenSetBeforeItsCountJoinedTheClosedSumDoesNotMakeTheFigureGoDown() {
        ActiveSession session = session();
        assertEquals(100, session.lostEvents(() -> 100), "a live thread's writer dropped 100 events");
        assertEquals(100, session.lostEvents(() -> 0), "its thread ended: its writer left the open set, its count "
                + "has not joined the closed sum yet");
        session.writerClosed(100);
        assertEquals(100, session.lostEvents(() -> 0), "its count joined the closed sum");
        session.writerClosed(50);
        assertEquals(150, session.lostEvents(() -> 0), "a later loss shows");
        session.lostWithoutWriter();
        assertEquals(151, session.lostEvents(() -> 0), "and an event lost before reaching a writer");
    }
}
