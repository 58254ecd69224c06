package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.OwnApiCopyApplication;
import io.jtrace.it.workload.OwnApiCopyWorkload;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A web application whose class loader loads its own jtrace-api first is traced: with the agent there
 * from the start (its copy binds as it initializes) and with the agent attached while it runs (the
 * copy was initialized before the agent came).
 */
class OwnApiCopyTest {
    private static final String API_JAR = "-Djtrace.apiJar=" + Path.of(System.getProperty("jtrace.apiJar")).toAbsolutePath();

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void anApplicationsOwnCopyOfTheApiIsTracedByAnAgentThereFromTheStart(String jdk) throws Exception {
        Path trace = dir.resolve("from-start.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,sources=track_event,file=" + trace, trace, dir,
                List.of("-Xmx256m", API_JAR), Duration.ofSeconds(120), OwnApiCopyWorkload.class.getName(), OwnApiCopyApplication.class.getName(), "1");
        assertEquals("READY own copy: true\n", result.stdout());
        assertEquals("", result.stderr());
        assertTicksFromTheApplication(TraceModel.read(trace), List.of());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void anApplicationsOwnCopyOfTheApiIsTracedByAnAgentAttachedLater(String jdk) throws Exception {
        Path launcher = ChildJvm.java(jdk);
        Path trace = dir.resolve("attached.pftrace");
        Process child = new ProcessBuilder(launcher.toString(), "-XX:+EnableDynamicAgentLoading", "-Xmx256m", API_JAR,
                "-cp", System.getProperty("jtrace.workloadClasspath"), OwnApiCopyWorkload.class.getName(), OwnApiCopyApplication.class.getName(), "12")
                .redirectError(dir.resolve("stderr.txt").toFile())
                .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("READY own copy: true", out.readLine());
            Process jcmd = new ProcessBuilder(launcher.resolveSibling("jcmd").toString(), String.valueOf(child.pid()),
                    "JVMTI.agent_load", ChildJvm.agentJar().toAbsolutePath().toString(),
                    "\"start,sources=track_event,duration=1s,file=" + trace + "\"")
                    .redirectErrorStream(true)
                    .start();
            String jcmdOutput = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS));
            assertTrue(jcmdOutput.contains("return code: 0"), jcmdOutput);
        }
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the workload ends by itself");
        assertEquals(0, child.exitValue());
        assertEquals("", Files.readString(dir.resolve("stderr.txt")));
        // The session starts and stops while the application is inside a slice.
        assertTicksFromTheApplication(TraceModel.read(trace), List.of("never ended", "never begun"));
    }

    private static void assertTicksFromTheApplication(TraceModel model, List<String> expectedProblems) {
        assertEquals(List.of(), model.problems.stream().filter(p -> expectedProblems.stream().noneMatch(p::contains)).toList());
        List<TraceModel.SliceRecord> ticks = model.slicesNamed("tick");
        assertTrue(ticks.size() > 10, "ticks of the application's own copy: " + ticks.size());
        for (TraceModel.SliceRecord tick : ticks) {
            assertEquals(List.of("web-app"), tick.categories());
        }
    }
}
