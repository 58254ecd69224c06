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

        TrackDescriptor worker = JfrSteps.assertEachStepFollowsItsApiSlice(model, dir.resolve("gaps.txt"), STEPS);
        long threadTracks = model.tracks.values().stream()
                .filter(d -> d.hasThread() && d.getThread().getTid() == worker.getThread().getTid()).count();
        assertEquals(1, threadTracks, "the recording's events use the agent's thread track, not one of their own");
    }
}
