package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.GatedFloodWorkload;
import io.jtrace.it.workload.JmxClientWorkload;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A JMX client in its own JVM, without jtrace's classes, drives {@code io.jtrace:type=Tracing} of a JVM
 * running the agent over a loopback JMX connector (the JVM's own {@code com.sun.management.jmxremote}
 * settings: jtrace opens no listener): start, flush, dump, stop, attributes and notifications.
 */
class TracingMBeanTest {
    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * A real overload (64 flooding threads: writers drop events when the shared memory fills) reaches a
     * JMX listener as {@code io.jtrace.data.lost} while the session runs. The session is kept in a ring
     * (written at its end), so every chunk goes through the service, which is one thread among 65 (a
     * session streamed into a file has its writers append their own chunks, and this flood no longer
     * overloads it). The flood lasts 3 s and goes on until the agent counts a loss (at most 20 s). The
     * ring holds 64 MiB, about half of what the flood writes: the service counts a writer's drops as it
     * reads out the chunk that marks them, at the stop, so the marked chunks must not all have been
     * overwritten (with 1 MiB, one CI run's ring kept only chunks written after the overload: 12.8 M
     * events counted lost, no writer drop left to read out).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void writersDroppingEventsUnderOverloadAreNotifiedAsDataLost(String jdk) throws Exception {
        int port = freePort();
        List<String> flags = List.of("-Xmx256m", "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port, "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false");
        try (RunningJvm target = new RunningJvm(jdk, "start,ring,name=flood,buffer=64m,file=" + dir.resolve("flood.pftrace"),
                dir, flags, GatedFloodWorkload.class.getName(), "64", "3000", "20000");
             JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(
                     "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            ObjectName name = new ObjectName("io.jtrace:type=Tracing");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!server.isRegistered(name) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            BlockingQueue<Notification> lost = new LinkedBlockingQueue<>();
            server.addNotificationListener(name, (n, h) -> {
                if (n.getType().equals("io.jtrace.data.lost")) {
                    lost.add(n);
                }
            }, null, null);
            target.process.getOutputStream().write('\n');
            target.process.getOutputStream().flush();
            // The agent counts a dropped event at once; the service counts a writer's drop when it reads the
            // chunk that marks it, which for a ring is at the session's end (checked after the stop below).
            long newWriterPacketLoss = 0;
            long newEventsLost = 0;
            CompositeData last = null;
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while (newEventsLost == 0 && System.nanoTime() < waitUntil) {
                Notification n = lost.poll(1, TimeUnit.SECONDS);
                if (n != null) {
                    last = (CompositeData) n.getUserData();
                    assertEquals("flood", last.get("session"), last.toString());
                    newWriterPacketLoss += (Long) last.get("newWriterPacketLoss");
                    newEventsLost += (Long) last.get("newEventsLost");
                }
            }
            CompositeData data = last;
            assertNotNull(data, () -> "no data.lost notification during the flood; target stderr:\n" + target.stderrText()
                    + "\nsessions: " + sessions(server, name));
            assertTrue(newEventsLost > 0, "events are counted as they are lost: " + data);
            assertEquals(newWriterPacketLoss, (Long) data.get("writerPacketLoss"), "the notifications add up: " + data);
            assertEquals(newEventsLost, (Long) data.get("eventsLost"), "the notifications add up: " + data);
            CompositeData session = ((CompositeData[]) server.getAttribute(name, "Sessions"))[0];
            assertTrue((Long) session.get("writerPacketLoss") >= (Long) data.get("writerPacketLoss"),
                    "the Sessions attribute counts the same losses: " + session);
            assertTrue((Long) session.get("eventsLost") >= (Long) data.get("eventsLost"),
                    "the Sessions attribute counts the same events: " + session);

            // The writers' drops: the service counts a drop marker as it reads the ring out, at the stop; the
            // next look at the stopped session notifies them. A marker rides on the writer's next chunk, and
            // the ring may overwrite every such chunk of the flood before the stop (a CI run kept none of
            // 13,049). So the stop waits for the flood's end: a thread that ended while dropping has its
            // writer closed, by the reaper or at the stop, in a chunk of its own that carries the marker,
            // the newest data in the ring.
            target.awaitStdoutLine("SLICES=", 60);
            server.invoke(name, "stop", new Object[] {"flood"}, new String[] {String.class.getName()});
            long stoppedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (newWriterPacketLoss == 0 && System.nanoTime() < stoppedBy) {
                Notification n = lost.poll(1, TimeUnit.SECONDS);
                if (n != null) {
                    newWriterPacketLoss += (Long) ((CompositeData) n.getUserData()).get("newWriterPacketLoss");
                }
            }
            assertTrue(newWriterPacketLoss > 0, "writer drops are notified: " + sessions(server, name));
        }
    }

    private static String sessions(MBeanServerConnection server, ObjectName name) {
        try {
            return Arrays.toString((Object[]) server.getAttribute(name, "Sessions"));
        } catch (Exception e) {
            return e.toString();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aPlainJmxClientStartsFlushesDumpsAndStopsASessionAndGetsValidTraces(String jdk) throws Exception {
        int port = freePort();
        List<String> jmxFlags = List.of("-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port, "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false");
        Path ring = dir.resolve("ring.pftrace");
        Path dump = dir.resolve("dump.pftrace");
        String output;
        try (RunningJvm target = new RunningJvm(jdk, "", dir, jmxFlags)) {
            List<String> client = new ArrayList<>(List.of(target.launcher.toString(), "-cp",
                    System.getProperty("jtrace.workloadClasspath"), JmxClientWorkload.class.getName(),
                    "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi", ring.toString(), dump.toString()));
            Process process = new ProcessBuilder(client).redirectErrorStream(true).start();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, process.exitValue(), output + "\ntarget stderr:\n" + target.stderrText());
        }
        List<String> lines = output.lines().toList();
        assertTrue(lines.contains("JTRACE_CLASSES=absent"), output);
        assertTrue(lines.contains("DATA_SOURCE=track_event") && lines.contains("DATA_SOURCE=jvm.gc"), output);
        assertTrue(lines.contains("OPERATION=dump|Writes the trace of a running ring-mode session so far into a file "
                + "while the session goes on (like JFR.dump). Returns the file, bytes and packets|name|The session's "
                + "name; empty when only one session runs"), "operations and parameters are described: " + output);
        assertTrue(lines.contains("STARTED=jmx STARTED ring"), output);
        assertTrue(lines.contains("FLUSHED=jmx"), output);
        assertTrue(lines.contains("DUMPED=" + dump + " " + Files.size(dump)), output);
        String session = lines.stream().filter(l -> l.startsWith("SESSION=jmx STARTED buffer 4194304 used "))
                .findFirst().orElseThrow(() -> new AssertionError(output));
        assertTrue(Long.parseLong(session.substring(session.lastIndexOf(' ') + 1)) > 0,
                () -> "the flushed ring holds data: " + session);
        assertTrue(lines.contains("ERROR=java.lang.IllegalArgumentException: no running session named "
                + "'no-such-session' (running: jmx)"), output);
        assertTrue(lines.contains("STOPPED=STOPPED " + ring + " " + Files.size(ring)), output);
        assertTrue(lines.contains("NOTIFICATIONS=io.jtrace.session.started:jmx:" + ring
                + ",io.jtrace.session.stopped:jmx:" + ring), output);

        for (Path trace : List.of(dump, ring)) {
            TraceModel model = TraceModel.read(trace);
            assertEquals(List.of(), model.problems.stream()
                    .filter(p -> !p.contains("never ended") && !p.contains("never begun")).toList(), trace.toString());
            assertTrue(model.slices.stream().filter(s -> "tick".equals(s.name())).count() > 10, trace.toString());
            assertTrue(model.packets.get(model.packets.size() - 1).hasTraceStats(), trace.toString());
        }
    }
}
