package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JDK's own {@code jcmd <pid> JVMTI.agent_load jtrace.jar <command>} starts, dumps, flushes and stops
 * sessions, in a JVM started without the agent and in one started with it (where the second load must
 * find the first load's sessions: one service per JVM); a bad command returns non-zero.
 */
class AgentControlTest {
    @TempDir
    Path dir;

    private static void ok(RunningJvm.Jcmd result) {
        assertEquals(0, result.returnCode(), result.output());
    }

    /** A trace file the agent completed: decodes, has "tick" slices, ends with the service's stats. */
    private static void assertTicks(Path trace) throws Exception {
        TraceModel model = TraceModel.read(trace);
        // Tracing starts and stops while the workload is inside a slice: an end without its begin at the
        // start and a begin without its end at the stop are expected; anything else is not.
        assertEquals(List.of(), model.problems.stream()
                .filter(p -> !p.contains("never ended") && !p.contains("never begun")).toList(), trace.toString());
        long ticks = model.slices.stream().filter(s -> "tick".equals(s.name())).count();
        assertTrue(ticks > 10, trace + ": tick slices " + ticks);
        assertTrue(model.packets.get(model.packets.size() - 1).hasTraceStats(), trace + " is a finished trace");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void jcmdStartsDumpsAndStopsASessionInAJvmStartedWithoutTheAgent(String jdk) throws Exception {
        Path dump = dir.resolve("dump.pftrace");
        Path trace = dir.resolve("ring.pftrace");
        try (RunningJvm jvm = new RunningJvm(jdk, null, dir, List.of())) {
            ok(jvm.jcmd("start,ring,name=incident,buffer=4m,file=" + trace));
            Thread.sleep(500);
            ok(jvm.jcmd("status"));
            ok(jvm.jcmd("flush,name=incident"));
            ok(jvm.jcmd("dump,file=" + dump));
            assertTrue(Files.size(dump) > 0);
            assertFalse(Files.exists(trace) && Files.size(trace) > 0, "a ring session writes its file only at its end");
            Thread.sleep(300);
            ok(jvm.jcmd("stop"));
            assertEquals("", jvm.stderrText(), "commands that succeed print nothing on the JVM's stderr");

            RunningJvm.Jcmd nothingToStop = jvm.jcmd("stop");
            assertNotEquals(0, nothingToStop.returnCode(), nothingToStop.output());
            assertTrue(jvm.stderrText().contains("jtrace agent command failed: no tracing session is running"),
                    jvm.stderrText());
        }
        assertTicks(dump);
        assertTicks(trace);
        TraceModel dumped = TraceModel.read(dump);
        TraceModel whole = TraceModel.read(trace);
        assertTrue(whole.slices.size() > dumped.slices.size(), "the session went on after the dump: "
                + whole.slices.size() + " slices at the end, " + dumped.slices.size() + " in the dump");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void jcmdControlsTheSessionsOfAnAgentLoadedAtStartUp(String jdk) throws Exception {
        Path boot = dir.resolve("boot.pftrace");
        Path ring = dir.resolve("ring.pftrace");
        Path dump = dir.resolve("dump.pftrace");
        try (RunningJvm jvm = new RunningJvm(jdk, "start,name=boot,sources=jvm.gc,file=" + boot, dir, List.of())) {
            ok(jvm.jcmd("start,ring,name=later,sources=track_event,buffer=4m,file=" + ring));
            Thread.sleep(500);
            ok(jvm.jcmd("dump,name=later,file=" + dump));
            // The session premain started is in the registry jcmd's load sees: the same runtime, not a second one.
            ok(jvm.jcmd("stop,name=boot"));
            assertTrue(Files.size(boot) > 0, "stopping the start-up session completed its file");
            RunningJvm.Jcmd again = jvm.jcmd("stop,name=boot");
            assertNotEquals(0, again.returnCode(), "boot was stopped already: " + again.output());
            ok(jvm.jcmd("stop,name=later"));
            assertFalse(jvm.stderrText().contains("another copy of jtrace"), jvm.stderrText());
        }
        assertTicks(dump);
        assertTicks(ring);
        assertTrue(TraceModel.read(boot).packets.get(TraceModel.read(boot).packets.size() - 1).hasTraceStats());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aBadCommandMakesJcmdReportANonZeroReturnCodeAndTheApplicationRunsOn(String jdk) throws Exception {
        try (RunningJvm jvm = new RunningJvm(jdk, null, dir, List.of())) {
            RunningJvm.Jcmd bogus = jvm.jcmd("start,bogus=1");
            assertNotEquals(0, bogus.returnCode(), bogus.output());
            assertTrue(jvm.stderrText().contains("unknown jtrace option 'bogus'"), jvm.stderrText());
            RunningJvm.Jcmd noFile = jvm.jcmd("dump");
            assertNotEquals(0, noFile.returnCode(), noFile.output());
            assertTrue(jvm.stderrText().contains("jtrace dump needs file=<path>"), jvm.stderrText());
            ok(jvm.jcmd("start,duration=1s,file=" + dir.resolve("after.pftrace")));
            assertTrue(jvm.process.isAlive(), "failed commands leave the application running");
        }
    }
}
