package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.AttachWorkload;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jcmd <pid> JVMTI.agent_load jtrace.jar "start,..."} on a JVM started without the agent. */
class AgentAttachTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void jcmdLoadsTheAgentIntoARunningJvmAndTracesIt(String jdk) throws Exception {
        Path launcher = ChildJvm.java(jdk);
        Path trace = dir.resolve("attached.pftrace");
        // -XX:+EnableDynamicAgentLoading silences the JVM's own warning about agents loaded this way (JDK 21+),
        // as the README tells users; whatever is left on stderr would be the agent's.
        Process child = new ProcessBuilder(launcher.toString(), "-XX:+EnableDynamicAgentLoading", "-cp",
                System.getProperty("jtrace.workloadClasspath") + File.pathSeparator + ChildJvm.agentJar().toAbsolutePath(),
                AttachWorkload.class.getName(), "12")
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("READY", out.readLine());
            // jcmd splits its own arguments at '=': the agent's options go in double quotes.
            Process jcmd = new ProcessBuilder(launcher.resolveSibling("jcmd").toString(), String.valueOf(child.pid()),
                    "JVMTI.agent_load", ChildJvm.agentJar().toAbsolutePath().toString(),
                    "\"start,duration=1s,file=" + trace + "\"")
                    .redirectErrorStream(true)
                    .start();
            String jcmdOutput = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, jcmd.exitValue(), jcmdOutput);
            assertTrue(jcmdOutput.contains("return code: 0"), jcmdOutput);
        }
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the workload ends by itself");
        assertEquals(0, child.exitValue());
        assertEquals("", Files.readString(dir.resolve("stderr.txt")), "an attached agent prints nothing on the JVM's stderr");

        TraceModel model = TraceModel.read(trace);
        // Tracing starts and stops while the workload is inside a slice: an end without its begin at the
        // start and a begin without its end at the stop are expected; anything else is not.
        assertEquals(List.of(), model.problems.stream()
                .filter(p -> !p.contains("never ended") && !p.contains("never begun")).toList());
        long ticks = model.slices.stream().filter(s -> "tick".equals(s.name())).count();
        assertTrue(ticks > 10, "slices from the attached session: " + ticks);
        assertTrue(model.packets.get(model.packets.size() - 1).hasTraceStats(), "a finished trace");
    }
}
