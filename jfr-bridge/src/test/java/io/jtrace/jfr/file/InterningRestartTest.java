package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.DebugAnnotation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequence whose interning tables fill starts over (state cleared, names, frames and callstacks
 * interned and written again as they are next used): with tables bounded to 8 entries, so a
 * conversion starts over many times, every event still resolves on its sequence and the trace says
 * exactly what the conversion with roomy tables says. Guards the iids the mapper keeps per event type
 * across events: one kept past a restart would name nothing, or the wrong thing.
 */
class InterningRestartTest {
    @TempDir
    static Path dir;
    static DecodedTrace roomy;
    static DecodedTrace cramped;

    @BeforeAll
    static void convertTwice() throws Exception {
        Path recording = TestRecordings.record(dir.resolve("rec.jfr"), 2, 60);
        Path roomyOut = dir.resolve("roomy.pftrace");
        new JfrToTrace(false, null).convert(recording, roomyOut);
        roomy = DecodedTrace.read(roomyOut);
        Path crampedOut = dir.resolve("cramped.pftrace");
        new JfrToTrace(false, null, 8).convert(recording, crampedOut);
        cramped = DecodedTrace.read(crampedOut);
    }

    @Test
    void crampedTablesStartTheSequencesOverManyTimesAndNothingIsUndefined() {
        assertEquals(List.of(), cramped.problems);
        assertTrue(cramped.stateClears > roomy.stateClears + 20,
                "restarts: " + cramped.stateClears + " state clears against " + roomy.stateClears);
    }

    @Test
    void everySliceInstantCounterAndSampleIsTheSameAsWithRoomyTables() {
        assertEquals(List.of(), roomy.problems);
        assertEquals(content(roomy), content(cramped));
    }

    /** What the trace says, without iids: every event with its resolved names, track, times and values. */
    private static Map<String, Integer> content(DecodedTrace t) {
        List<String> all = new ArrayList<>();
        for (DecodedTrace.Slice s : t.slices) {
            all.add("slice|" + s.name() + "|" + t.trackName(s.track()) + "|" + s.start() + "|" + s.end() + "|" + args(s.args()));
        }
        for (DecodedTrace.Instant i : t.instants) {
            all.add("instant|" + i.name() + "|" + t.trackName(i.track()) + "|" + i.ts() + "|" + args(i.args()));
        }
        for (DecodedTrace.Counter c : t.counters) {
            all.add("counter|" + t.trackName(c.track()) + "|" + c.ts() + "|" + c.value());
        }
        for (DecodedTrace.Sample s : t.samples) {
            all.add("sample|" + s.ts() + "|" + s.tid() + "|" + s.framesLeafFirst());
        }
        return GroundTruth.multiset(all);
    }

    private static String args(Map<String, DebugAnnotation> args) {
        Map<String, String> named = new TreeMap<>();
        args.forEach((name, a) -> named.put(name, a.toBuilder().clearNameIid().build().toString()));
        return named.toString();
    }
}
