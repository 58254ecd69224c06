package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code java -jar jtrace.jar start|dump|stop|status --pid} through the Attach API on a JVM started
 * without the agent (which only start loads); its status agrees with the MBean; failures have exit
 * codes scripts can use.
 */
class CliControlTest {
    @TempDir
    Path dir;

    record Cli(int exitCode, String out, String err) {
    }

    /** Runs the CLI with the target's JDK, as a user would. */
    private static Cli cli(RunningJvm jvm, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(jvm.launcher.toString(), "-jar",
                ChildJvm.agentJar().toAbsolutePath().toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new Cli(p.exitValue(), out, err);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void theCliLoadsTheAgentOnlyToStartAndDumpsStopsAndItsStatusAgreesWithTheMBean(String jdk) throws Exception {
        int port = freePort();
        List<String> jmxFlags = List.of("-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port, "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false");
        Path ring = dir.resolve("cli.pftrace");
        Path dump = dir.resolve("cli-dump.pftrace");
        try (RunningJvm jvm = new RunningJvm(jdk, null, dir, jmxFlags)) {
            String pid = String.valueOf(jvm.pid());
            Cli statusBefore = cli(jvm, "status", "--pid", pid);
            assertEquals(0, statusBefore.exitCode(), statusBefore.err());
            assertEquals("jtrace is not loaded in pid " + pid + ": no tracing sessions (jtrace start --pid " + pid
                    + " loads it)\n", statusBefore.out());
            Cli stopBefore = cli(jvm, "stop", "--pid", pid);
            assertEquals(1, stopBefore.exitCode(), stopBefore.out());
            assertEquals("jtrace stop: jtrace is not loaded in pid " + pid + ", so it has no session to stop "
                    + "(jtrace start --pid " + pid + " loads it)\n", stopBefore.err());
            Cli listBefore = cli(jvm, "list");
            assertTrue(listBefore.out().lines().anyMatch(l -> l.startsWith(pid + " ") && l.contains("not loaded")),
                    "status and stop must not load the agent:\n" + listBefore.out());

            Cli started = cli(jvm, "start", "--pid", pid, "ring,name=cli,buffer=4m,file=" + ring);
            assertEquals(0, started.exitCode(), started.err());
            assertTrue(started.out().startsWith("started session 'cli' (id "), started.out());
            Thread.sleep(500);

            Cli status = cli(jvm, "status", "--pid", pid);
            assertEquals(0, status.exitCode(), status.err());
            try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"))) {
                MBeanServerConnection server = c.getMBeanServerConnection();
                CompositeData[] sessions = (CompositeData[]) server.getAttribute(
                        new ObjectName("io.jtrace:type=Tracing"), "Sessions");
                assertEquals(1, sessions.length);
                CompositeData s = sessions[0];
                CompositeData buffer = ((CompositeData[]) s.get("buffers"))[0];
                String expected = "session '" + s.get("name") + "' (id " + s.get("id") + "): " + s.get("state") + ", "
                        + s.get("mode") + ", " + s.get("config") + ", file " + s.get("file") + ", "
                        + s.get("bytesWritten") + " bytes written, buffer " + ((Long) buffer.get("sizeBytes") / 1024)
                        + "kb ";
                assertTrue(status.out().startsWith(expected), "status:\n" + status.out() + "MBean:\n" + expected);
                assertEquals("cli", s.get("name"));
                assertEquals(ring.toString(), s.get("file"));
            }

            Cli dumped = cli(jvm, "dump", "--pid", pid, "--out", dump.toString());
            assertEquals(0, dumped.exitCode(), dumped.err());
            assertTrue(dumped.out().startsWith("session 'cli' dumped to " + dump + ": "), dumped.out());

            Cli unknown = cli(jvm, "stop", "--pid", pid, "--name", "nope");
            assertEquals(1, unknown.exitCode(), unknown.out());
            assertEquals("jtrace stop: no running session named 'nope' (running: cli)\n", unknown.err());

            Cli stopped = cli(jvm, "stop", "--pid", pid);
            assertEquals(0, stopped.exitCode(), stopped.err());
            assertTrue(stopped.out().startsWith("stopped session 'cli'") && stopped.out().contains("STOPPED"),
                    stopped.out());

            Cli list = cli(jvm, "list");
            assertEquals(0, list.exitCode(), list.err());
            assertTrue(list.out().lines().anyMatch(l -> l.startsWith(pid + " ") && l.contains("loaded 0.")),
                    list.out());
        }
        for (Path trace : List.of(dump, ring)) {
            TraceModel model = TraceModel.read(trace);
            assertTrue(model.slices.stream().filter(s -> "tick".equals(s.name())).count() > 10, trace.toString());
            assertTrue(model.packets.get(model.packets.size() - 1).hasTraceStats(), trace.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void textTraceConfigsStartSessionsFromTheCliAndFromTheAgentOptions(String jdk) throws Exception {
        Path streamed = dir.resolve("streamed.pbtxt");
        Files.writeString(streamed, """
                buffers { size_kb: 4096 }
                data_sources { config { name: "track_event" track_event_config { enabled_categories: "app" } } }
                write_into_file: true
                unique_session_name: "from-config"
                """);
        Path kept = dir.resolve("kept.pbtxt");
        Files.writeString(kept, """
                buffers { size_kb: 2048 fill_policy: RING_BUFFER }
                data_sources { config { name: "jvm.gc" } }
                """);
        Path bad = dir.resolve("bad.pbtxt");
        Files.writeString(bad, "buffers { size_kb: 64 }\ndata_sources { config { name: \"x\" }\n");
        Path cliTrace = dir.resolve("cli-config.pftrace");
        Path bootTrace = dir.resolve("boot-config.pftrace");
        try (RunningJvm jvm = new RunningJvm(jdk, "start,name=boot,config=" + kept + ",file=" + bootTrace, dir,
                List.of())) {
            String pid = String.valueOf(jvm.pid());
            Cli started = cli(jvm, "start", "--pid", pid, "--config", streamed.toString(), "--out", cliTrace.toString());
            assertEquals(0, started.exitCode(), started.err());
            assertTrue(started.out().startsWith("started session 'from-config' (id ") && started.out().contains(
                    "file, sources=track_event[app] buffers=4096kb ring"), started.out());
            Cli status = cli(jvm, "status", "--pid", pid);
            assertTrue(status.out().contains("session 'boot' (id 1): STARTED, ring, sources=jvm.gc buffers=2048kb ring"),
                    "the agent's config= option started a ring session from the text config: " + status.out());
            Cli refused = cli(jvm, "start", "--pid", pid, "--config", bad.toString());
            assertEquals(1, refused.exitCode(), refused.out());
            assertTrue(refused.err().startsWith("jtrace start: --config " + bad + ": trace config line 3, column 1: "),
                    refused.err());
            Thread.sleep(500);
            assertEquals(0, cli(jvm, "stop", "--pid", pid, "--name", "from-config").exitCode());
            assertEquals(0, cli(jvm, "stop", "--pid", pid, "--name", "boot").exitCode());
        }
        TraceModel model = TraceModel.read(cliTrace);
        assertTrue(model.slices.stream().filter(s -> "tick".equals(s.name())).count() > 10, cliTrace.toString());
        assertTrue(model.packets.get(1).getTraceConfig().getUniqueSessionName().equals("from-config"));
        TraceModel boot = TraceModel.read(bootTrace);
        assertTrue(boot.packets.get(boot.packets.size() - 1).hasTraceStats(), bootTrace.toString());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17"})
    void processesThatCannotBeControlledGetAOneLineErrorAndExitCode3(String jdk) throws Exception {
        Process notAJvm = new ProcessBuilder("sleep", "60").start();
        try (RunningJvm jvm = new RunningJvm(jdk, null, dir, List.of())) {
            Cli sleep = cli(jvm, "status", "--pid", String.valueOf(notAJvm.pid()));
            assertEquals(3, sleep.exitCode(), sleep.err());
            assertTrue(sleep.err().contains("is not a JVM this user can attach to"), sleep.err());
            assertTrue(notAJvm.isAlive(), "a process that is not a JVM is never signalled");
            Cli gone = cli(jvm, "status", "--pid", "999999999");
            assertEquals(3, gone.exitCode());
            assertEquals("jtrace status: no process with pid 999999999\n", gone.err());
            Cli usage = cli(jvm, "dump", "--pid", String.valueOf(jvm.pid()));
            assertEquals(2, usage.exitCode());
            assertEquals("jtrace dump: dump needs --out <file>\n", usage.err());
        } finally {
            notAJvm.destroy();
        }
    }
}
