package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.JfrWorkload;
import io.jtrace.protos.TracePacket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The live {@code jvm.jfr} source, JDK 17 and 25: the agent records JFR events while the session runs
 * and writes them onto its own thread tracks; a JFR recording made beside it ({@code
 * -XX:StartFlightRecording}, which keeps working) is the ground truth: every application JFR event it
 * has is in the trace, also the last ones before the session stops, whether at the end of its duration
 * while the JVM runs on or when the JVM exits.
 */
class JfrLiveSourceTest {
    private static final int STEPS = 200;

    @TempDir
    Path dir;

    /** {@code stop}: "duration" ends the session while the JVM runs on; "exit" when the JVM exits (shutdown hook, racing JFR's own). */
    @ParameterizedTest(name = "{0}, stop at {1}")
    @CsvSource({"jtrace.jdk17,duration", "jtrace.jdk17,exit", "jtrace.jdk25,duration", "jtrace.jdk25,exit"})
    void jfrEventsOfTheSessionAreOnTheAgentsThreadTracksAndNoneIsLostAtStop(String jdk, String stop) throws Exception {
        Path trace = dir.resolve("live.pftrace");
        Path beside = dir.resolve("beside.jfr");
        List<String> flags = new ArrayList<>(ChildJvm.DEFAULT_JVM_FLAGS);
        flags.add("-XX:StartFlightRecording=filename=" + beside + ",settings=default");
        boolean atExit = stop.equals("exit");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk),
                "start," + (atExit ? "" : "duration=5s,") + "file=" + trace
                        + ",sources=track_event+jvm.jfr,jfr=it.Step+jdk.ExecutionSample#period=10 ms",
                trace, dir, flags, ChildJvm.DEFAULT_TIMEOUT, JfrWorkload.class.getName(),
                atExit ? new String[] {String.valueOf(STEPS)} : new String[] {String.valueOf(STEPS), "8000"});
        assertTrue(result.stderr().lines().noneMatch(l -> l.contains("jtrace")), result.stderr());

        long stepsBeside = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(beside)) {
            if (e.getEventType().getName().equals("it.Step")) {
                stepsBeside++;
            }
        }
        assertEquals(STEPS, stepsBeside, "the user's own recording is unaffected");

        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems);
        JfrSteps.assertEachStepFollowsItsApiSlice(model, dir.resolve("gaps.txt"), STEPS);
        long samples = model.packets.stream().filter(TracePacket::hasPerfSample).count();
        assertTrue(samples > 0, "execution samples became callstack samples");
    }

}
