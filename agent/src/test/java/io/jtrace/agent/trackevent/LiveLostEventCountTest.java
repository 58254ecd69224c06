package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The live count of lost events that JMX, jcmd and the CLI show while a session runs. */
class LiveLostEventCountTest {
    private static ActiveSession session() {
        return new ActiveSession(0, 1, false, null, null, new SequencePool(new Sequence[0], 0), null);
    }

    @Test
    void aWriterClosingBetweenTheReadsOfItsCountDoesNotMakeTheFigureGoDown() {
        ActiveSession session = session();
        assertEquals(100, session.lostEventsSoFar(100), "a live thread's writer dropped 100 events");
        assertEquals(100, session.lostEventsSoFar(0),
                "its thread ended: its writer left the open set, its count has not joined the closed sum yet");
        session.writerClosed(100);
        assertEquals(100, session.lostEventsSoFar(0), "its count joined the closed sum");
        session.writerClosed(50);
        assertEquals(150, session.lostEventsSoFar(0), "a later loss still shows");
    }

    @Test
    void aNonEventDropCountedBeforeItsWriterWasReadDoesNotMakeTheFigureGoDown() {
        ActiveSession session = session();
        assertEquals(10, session.lostEventsSoFar(10));
        session.nonEventsDropped(1);
        assertEquals(10, session.lostEventsSoFar(10), "the writer's count was read before it counted the drop");
        assertEquals(10, session.lostEventsSoFar(11), "the drop was not an event");
        session.lostWithoutWriter();
        assertEquals(11, session.lostEventsSoFar(11), "an event lost before reaching a writer counts");
    }
}
