package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.JfrWorkload;
import io.jtrace.protos.TrackDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * End to end, JDK 17 and 25: a JVM traced by the agent and recorded by JFR ({@code
 * -XX:StartFlightRecording}) at once; {@code java -jar jtrace.jar merge} puts the recording's events on
 * the agent's own thread tracks and timeline: a JFR event that follows an API slice on one thread comes
 * after it, within 1 ms more than the thread itself measured between the two.
 */
class JfrMergeTest {
    private static final int STEPS = 200;
    /**
     * How far apart the two clocks of a merge may put back-to-back events: JFR's wall clock (read with its
     * chunk's start ticks) against the trace's clock snapshots measured a few microseconds apart.
     */
    private static final long CLOCK_TOLERANCE_NANOS = 20_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void mergedRecordingSharesTheAgentsThreadTrackAndTimeline(String jdk) throws Exception {
        Path trace = dir.resolve("app.pftrace");
        Path jfr = dir.resolve("app.jfr");
        Path java = ChildJvm.java(jdk);
        List<String> flags = new ArrayList<>(ChildJvm.DEFAULT_JVM_FLAGS);
        flags.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=default");
        ChildJvm.runTraced(java, "start,file=" + trace, trace, dir, flags, ChildJvm.DEFAULT_TIMEOUT,
                JfrWorkload.class.getName(), String.valueOf(STEPS));
        assertTrue(Files.isRegularFile(jfr), "JFR wrote its recording");

        Path merged = dir.resolve("merged.pftrace");
        Process merge = new ProcessBuilder(java.toString(), "-jar", ChildJvm.agentJar().toAbsolutePath().toString(),
                "merge", trace.toString(), jfr.toString(), "-o", merged.toString())
                .redirectErrorStream(true).start();
        assertTrue(merge.waitFor(120, TimeUnit.SECONDS), "merge finished");
        String output = new String(merge.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, merge.exitValue(), output);
        assertTrue(output.contains("it.Step"), output);

        TraceModel model = TraceModel.read(merged);
        assertEquals(List.of(), model.problems);
        assertEquals(0, model.packetsWithoutSequenceId);

        List<TraceModel.SliceRecord> api = slices(model, "api-step");
        List<TraceModel.SliceRecord> steps = slices(model, "it.Step");
        assertEquals(STEPS, api.size());
        assertEquals(STEPS, steps.size());
        long workerTrack = api.get(0).track();
        TrackDescriptor worker = model.tracks.get(workerTrack);
        assertEquals("jfr-it-worker", worker.getThread().getThreadName());
        long threadTracks = model.tracks.values().stream()
                .filter(d -> d.hasThread() && d.getThread().getTid() == worker.getThread().getTid()).count();
        assertEquals(1, threadTracks, "the recording's events use the agent's thread track, not one of their own");
        long[] measured = Files.readAllLines(dir.resolve("gaps.txt")).stream().mapToLong(Long::parseLong).toArray();
        for (int i = 0; i < STEPS; i++) {
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
    }

    private static List<TraceModel.SliceRecord> slices(TraceModel model, String name) {
        List<TraceModel.SliceRecord> result = new ArrayList<>();
        for (TraceModel.SliceRecord s : model.slices) {
            if (name.equals(s.name())) {
                result.add(s);
            }
        }
        result.sort(Comparator.comparingLong(TraceModel.SliceRecord::begin));
        return result;
    }
}
