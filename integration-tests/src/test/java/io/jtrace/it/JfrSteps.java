package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.protos.TrackDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code JfrWorkload} leaves in a trace with its JFR events in it (merged or live): each of its
 * {@code it.Step} JFR events on the worker's own thread track, right after the API slice "api-step" that
 * the thread emitted just before it, within the gap the thread measured itself (gaps.txt) plus 1 ms.
 */
final class JfrSteps {
    /**
     * How far a JFR event may appear to begin before the API slice ends: the clocks' alignment error.
     * JFR dates an event as its chunk's wall-clock start plus the ticks since, converted at its estimate
     * of the tick rate, and reads that start and its tick counter one after the other: a chunk's dates can
     * be off by the delay between the two reads and by the rate's error. On a loaded CI machine an event
     * appeared 52 us early once, on JDK 25 (20 us was the bound before).
     */
    static final long CLOCK_TOLERANCE_NANOS = 200_000;

    private JfrSteps() {}

    /** Checks every step; returns the worker's thread track. */
    static TrackDescriptor assertEachStepFollowsItsApiSlice(TraceModel model, Path gaps, int expectedSteps)
            throws IOException {
        List<TraceModel.SliceRecord> api = model.slicesNamed("api-step");
        List<TraceModel.SliceRecord> steps = model.slicesNamed("it.Step");
        assertEquals(expectedSteps, api.size());
        assertEquals(expectedSteps, steps.size(), "every it.Step JFR recorded is in the trace");
        long workerTrack = api.get(0).track();
        TrackDescriptor worker = model.tracks.get(workerTrack);
        assertEquals("jfr-it-worker", worker.getThread().getThreadName());
        long[] measured = Files.readAllLines(gaps).stream().mapToLong(Long::parseLong).toArray();
        for (int i = 0; i < expectedSteps; i++) {
            TraceModel.SliceRecord a = api.get(i);
            TraceModel.SliceRecord s = steps.get(i);
            assertEquals(workerTrack, s.track(), "JFR event on the agent's thread track");
            assertTrue(s.begin() > a.begin(), "step " + i + ": the JFR event comes after the API slice");
            // The gap the thread measured is an upper bound of the true one (it spans the slice's own end).
            long gap = s.begin() - a.end();
            assertTrue(gap > -CLOCK_TOLERANCE_NANOS && gap < measured[i] + 1_000_000,
                    "step " + i + ": JFR event begins " + gap + " ns after the API slice ends; the thread measured "
                            + measured[i] + " ns");
        }
        return worker;
    }
}
