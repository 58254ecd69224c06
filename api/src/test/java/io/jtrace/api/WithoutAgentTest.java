package io.jtrace.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Without an agent every call is a no-op that throws nothing, and the disabled builder is shared. */
class WithoutAgentTest {
    private static final Category APP = Category.of("without-agent");

    @Test
    void everyCallDoesNothingAndCategoriesStayDisabled() {
        assertFalse(APP.isEnabled());
        TrackEvent.begin(APP, "x");
        TrackEvent.end(APP);
        try (Slice s = TrackEvent.slice(APP, "y")) {
            assertSame(TrackEvent.NOOP_SLICE, s);
        }
        TrackEvent.instant(APP, "z");
        TrackEvent.counter(APP, "c", 1L);
        TrackEvent.counter(APP, "d", 1.5);
        AsyncTrack track = AsyncTrack.named("request");
        Event e = TrackEvent.event(APP);
        assertSame(Event.DISABLED, e);
        assertSame(e, e.arg("a", 1).arg("b", 2.0).arg("c", true).arg("d", "s").flow(1).terminateFlow(2).on(track));
        assertEquals(0, e.argCount(), "the disabled builder records nothing");
        e.begin("x");
        e.end();
        try (Slice s = TrackEvent.event(APP).on(track).slice("y")) {
            assertSame(TrackEvent.NOOP_SLICE, s);
        }
    }

    @Test
    void aCategoryIsOneInstancePerNameAndNeedsAName() {
        assertSame(APP, Category.of("without-agent"));
        assertThrows(IllegalArgumentException.class, () -> Category.of(""));
        assertThrows(IllegalArgumentException.class, () -> Category.of(null));
    }

    @Test
    void flowIdsAreDistinctAndNeverZero() {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            long id = TrackEvent.newFlowId();
            assertNotEquals(0, id);
            ids.add(id);
        }
        assertEquals(10_000, ids.size());
    }

    @Test
    void asyncTracksWithOneNameAreDistinctTracks() {
        AsyncTrack a = AsyncTrack.named("same");
        AsyncTrack b = AsyncTrack.named("same");
        assertEquals("same", a.name());
        assertNotEquals(a.uuid(), b.uuid());
        assertThrows(NullPointerException.class, () -> AsyncTrack.named(null));
    }

    @Test
    void applicationCodeCannotOpenTheAgentsBridge() {
        IllegalCallerException e = assertThrows(IllegalCallerException.class, () -> AgentBridge.open());
        assertTrue(e.getMessage().contains(WithoutAgentTest.class.getName()), e.getMessage());
    }
}
