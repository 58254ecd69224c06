package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TrackDescriptor;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording without {@code jdk.JVMInformation}: its pid comes from the process list when that tells
 * it unambiguously; otherwise the process gets a pid no Linux process can have (never 1, init's) and
 * the recording's file name, and the report says so.
 */
class UnknownPidTest {
    @TempDir
    Path dir;

    @Test
    void withoutAnyPidTheProcessIsNamedAfterTheFileWithAPidNoProcessCanHave() throws Exception {
        Path recording = TestRecordings.record(dir.resolve("anonymous.jfr"), 2, 10, r -> { });
        assertFalse(GroundTruth.of(recording).countPerType.containsKey("jdk.JVMInformation"));
        Path out = dir.resolve("anonymous.pftrace");
        ConversionReport report = new JfrToTrace(false, null).convert(recording, out);

        DecodedTrace trace = DecodedTrace.read(out);
        assertEquals(List.of(), trace.problems);
        Set<Integer> pids = new TreeSet<>();
        for (TrackDescriptor d : trace.tracks.values()) {
            if (d.hasProcess()) {
                pids.add(d.getProcess().getPid());
                assertEquals("anonymous.jfr", d.getProcess().getProcessName());
            }
            if (d.hasThread()) {
                pids.add(d.getThread().getPid());
            }
        }
        assertEquals(Set.of(JfrToTrace.UNKNOWN_PID), pids, "every track on the one made-up pid");
        assertTrue(JfrToTrace.UNKNOWN_PID >= 1 << 22, "above Linux's PID_MAX_LIMIT");
        assertEquals(1, report.notes().size(), report.notes().toString());
        assertTrue(report.notes().get(0).contains("no jdk.JVMInformation") && report.notes().get(0).contains(
                "pid " + JfrToTrace.UNKNOWN_PID), report.notes().get(0));
        assertFalse(report.lostSomething(), "a pid the recording never had is not data lost");
    }

    @Test
    void withoutJvmInformationThePidIsTheProcessListsOneEntryRunningThisJvmsCommand() throws Exception {
        Path recording = TestRecordings.record(dir.resolve("listed.jfr"), 1, 5, r -> {
            r.enable("jdk.InitialSystemProperty");
            r.enable("jdk.SystemProcess");
        });
        GroundTruth truth = GroundTruth.of(recording);
        assertFalse(truth.countPerType.containsKey("jdk.JVMInformation"));
        assertTrue(truth.countPerType.containsKey("jdk.SystemProcess"), truth.countPerType.toString());
        Path out = dir.resolve("listed.pftrace");
        ConversionReport report = new JfrToTrace(false, null).convert(recording, out);

        int pid = (int) ProcessHandle.current().pid();
        Set<Integer> pids = new TreeSet<>();
        for (TrackDescriptor d : DecodedTrace.read(out).tracks.values()) {
            if (d.hasProcess()) {
                pids.add(d.getProcess().getPid());
            }
        }
        assertEquals(Set.of(pid), pids);
        assertEquals(List.of(recording + ": has no jdk.JVMInformation event; pid " + pid
                + " is from jdk.SystemProcess matching sun.java.command"), report.notes());
    }
}
