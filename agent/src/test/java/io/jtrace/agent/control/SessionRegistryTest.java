package io.jtrace.agent.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.jmx.DumpInfo;
import io.jtrace.jmx.SessionInfo;
import io.jtrace.jmx.TracingControl;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registry every surface shares, over a real service (no producer: sessions hold only the service's packets). */
class SessionRegistryTest {
    @TempDir
    Path dir;

    private final TracingService service = new TracingService(ServiceConfig.defaults());
    private final SessionRegistry registry = new SessionRegistry(service, new SessionRegistry.RequestParser() {
        @Override
        public SessionRequest fromOptions(String options) {
            throw new IllegalArgumentException("options: " + options);
        }

        @Override
        public SessionRequest fromConfig(String traceConfigText, String file) {
            throw new IllegalArgumentException("config");
        }
    }, sessionId -> -1);
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        // Sessions end as at JVM exit: closing the service under a running ring session would free its
        // buffers before their last read (the agent never closes its service).
        for (SessionInfo s : registry.getSessions()) {
            if (!s.state().equals("STOPPED")) {
                registry.stop(s.name());
            }
        }
        service.close();
    }

    private SessionInfo start(String name, SessionRequest.Mode mode, String file) {
        TraceConfig config = TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(256))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("x")))
                .build();
        return registry.start(new SessionRequest(name, config, mode, dir.resolve(file)));
    }

    private void listen() {
        registry.addSessionListener(new TracingControl.SessionListener() {
            @Override
            public void started(SessionInfo s) {
                events.add("started " + s.name());
            }

            @Override
            public void stopped(SessionInfo s) {
                events.add("stopped " + s.name() + " " + s.state());
            }
        });
    }

    private static List<TracePacket> packets(Path file) throws Exception {
        return packets(Files.readAllBytes(file));
    }

    private static List<TracePacket> packets(byte[] trace) throws Exception {
        return Trace.parseFrom(trace).getPacketList();
    }

    @Test
    void sessionsStartedHereAreListedStoppedAndKeptWithTheirFile() throws Exception {
        listen();
        SessionInfo file = start(null, SessionRequest.Mode.FILE, "f.pftrace");
        SessionInfo ring = start("r", SessionRequest.Mode.RING, "r.pftrace");
        assertEquals("session-1", file.name());
        assertEquals("file", file.mode());
        assertEquals("ring", ring.mode());
        assertEquals(List.of("session-1", "r"), registry.getSessions().stream().map(SessionInfo::name).toList());
        assertEquals("STARTED", registry.getSessions().get(1).state());
        assertEquals(256 * 1024, registry.getSessions().get(1).buffers().get(0).sizeBytes());

        SessionInfo stopped = registry.stop("r");
        assertEquals("STOPPED", stopped.state());
        assertEquals(256 * 1024, stopped.buffers().get(0).sizeBytes(), "the ended session keeps its final counters");
        assertEquals(Files.size(dir.resolve("r.pftrace")), stopped.bytesWritten());
        List<TracePacket> trace = packets(dir.resolve("r.pftrace"));
        assertTrue(trace.get(1).hasTraceConfig() && trace.get(1).getTraceConfig().getUniqueSessionName().equals("r"));
        assertTrue(trace.get(trace.size() - 1).hasTraceStats(), "a RING session's file is written at its end");

        SessionInfo last = registry.stop("");
        assertEquals("session-1", last.name(), "with one session left, no name is needed");
        assertEquals(List.of("STOPPED", "STOPPED"), registry.getSessions().stream().map(SessionInfo::state).toList());
        assertEquals(List.of("started session-1", "started r", "stopped r STOPPED", "stopped session-1 STOPPED"), events);
    }

    @Test
    void aDumpWritesARingSessionsTraceAndRefusesAStreamedOne() throws Exception {
        start("r", SessionRequest.Mode.RING, "r.pftrace");
        start("f", SessionRequest.Mode.FILE, "f.pftrace");
        DumpInfo dump = registry.dump("r", dir.resolve("d.pftrace").toString());
        assertEquals(Files.size(dir.resolve("d.pftrace")), dump.bytes());
        assertTrue(packets(dir.resolve("d.pftrace")).get(1).hasTraceConfig());
        IllegalStateException streamed = assertThrows(IllegalStateException.class,
                () -> registry.dump("f", dir.resolve("d2.pftrace").toString()));
        assertTrue(streamed.getMessage().contains("streams into"), streamed.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> registry.dump("r", dir.resolve("r.pftrace").toString())).getMessage()
                .contains("dump into another file"), "a dump never overwrites the session's own file");
    }

    @Test
    void twoSessionsNeverWriteOneFileAndADumpNeverTakesARunningSessionsFile() throws Exception {
        start("r", SessionRequest.Mode.RING, "r.pftrace");
        start("f", SessionRequest.Mode.FILE, "f.pftrace");
        IllegalArgumentException shared = assertThrows(IllegalArgumentException.class,
                () -> start("g", SessionRequest.Mode.FILE, "f.pftrace"));
        assertEquals("session 'f' already writes " + dir.resolve("f.pftrace") + "; give this one another file",
                shared.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> registry.dump("r", dir.resolve("f.pftrace").toString())).getMessage()
                .contains("session 'f' writes"), "a dump never truncates another session's live file");
        registry.stop("f");
        start("g", SessionRequest.Mode.FILE, "f.pftrace"); // free again once 'f' has ended
        assertEquals("g", registry.stop("g").name());
        assertTrue(packets(dir.resolve("f.pftrace")).get(1).hasTraceConfig(), "the file decodes as one whole trace");
    }

    @Test
    void aRingSessionThatFailsToStartLeavesAFileAlreadyAtItsPathAsItWas() throws Exception {
        Path existing = dir.resolve("earlier.pftrace");
        Files.writeString(existing, "an earlier trace");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.start(new SessionRequest("bad", TraceConfig.newBuilder().build(), SessionRequest.Mode.RING, existing)));
        assertTrue(e.getMessage().contains("no buffers"), e.getMessage());
        assertEquals("an earlier trace", Files.readString(existing));
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith(".partial")), "no temporary file left");
        }
        start("bad", SessionRequest.Mode.RING, "earlier.pftrace"); // its name and file are free again
        registry.stop("bad");
        assertTrue(packets(existing).get(1).hasTraceConfig(), "replaced whole by the session's trace at its end");
    }

    @Test
    void aRefusedStartDoesNotUseUpTheNumberOfAGeneratedName() {
        assertThrows(IllegalArgumentException.class, () -> registry.start(new SessionRequest(null,
                TraceConfig.newBuilder().build(), SessionRequest.Mode.RING, dir.resolve("refused.pftrace"))));
        assertThrows(IllegalArgumentException.class, () -> registry.start(new SessionRequest(null,
                TraceConfig.newBuilder().build(), SessionRequest.Mode.RING, dir.resolve("refused.pftrace"))));

        assertEquals("session-1", start(null, SessionRequest.Mode.RING, "first.pftrace").name());
        assertEquals("session-2", start(null, SessionRequest.Mode.RING, "second.pftrace").name());
    }

    @Test
    void whichSessionIsMeantMustBeClear() {
        assertEquals("no tracing session is running",
                assertThrows(IllegalStateException.class, () -> registry.stop("")).getMessage());
        start("a", SessionRequest.Mode.FILE, "a.pftrace");
        start("b", SessionRequest.Mode.FILE, "b.pftrace");
        assertEquals("2 sessions are running (a, b): name one",
                assertThrows(IllegalArgumentException.class, () -> registry.flush(null)).getMessage());
        assertEquals("no running session named 'c' (running: a, b)",
                assertThrows(IllegalArgumentException.class, () -> registry.stop("c")).getMessage());
        assertEquals("a session named 'a' is already running",
                assertThrows(IllegalArgumentException.class,
                        () -> start("a", SessionRequest.Mode.FILE, "a2.pftrace")).getMessage());
        assertEquals("a", registry.flush("a").name());
        registry.stop("a");
        String ended = assertThrows(IllegalArgumentException.class, () -> registry.stop("a")).getMessage();
        assertTrue(ended.startsWith("session 'a' has already ended; its trace is "), ended);
    }

    @Test
    void aFileThatCannotBeWrittenFailsTheStartWithItsPath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.start(new SessionRequest("x", TraceConfig.newBuilder()
                        .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64)).build(),
                        SessionRequest.Mode.RING, Path.of("/proc/no-such-dir/x.pftrace"))));
        assertTrue(e.getMessage().contains("/proc/no-such-dir/x.pftrace"), e.getMessage());
        assertEquals(List.of(), registry.getSessions());
    }

    /** flush_period_ms and file_write_period_ms are uint32: 2^31 ms or more is the requester's, not replaced by the agent's default. */
    @Test
    void aStreamedSessionKeepsRequestedPeriodsOf2To31MsOrMore() throws Exception {
        for (long ms : new long[] {1L << 31, 0xFFFF_FFFFL}) {
            TraceConfig requested = TraceConfig.newBuilder()
                    .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(256))
                    .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("x")))
                    .setFlushPeriodMs((int) ms).setFileWritePeriodMs((int) ms)
                    .build();
            AgentSession session = AgentSession.start(service, "big", SessionRequest.Mode.FILE, dir.resolve("big.pftrace"),
                    requested);
            try {
                assertEquals(ms, Integer.toUnsignedLong(session.config.getFlushPeriodMs()), "flush_period_ms");
                assertEquals(ms, Integer.toUnsignedLong(session.config.getFileWritePeriodMs()), "file_write_period_ms");
            } finally {
                session.requestStop();
                assertEquals("", session.ended().get(30, java.util.concurrent.TimeUnit.SECONDS));
            }
        }
    }

    /** Opens once the registry has recorded the end of the session called {@code name}. */
    private java.util.concurrent.CountDownLatch endOf(String name) {
        java.util.concurrent.CountDownLatch recorded = new java.util.concurrent.CountDownLatch(1);
        registry.addSessionListener(new TracingControl.SessionListener() {
            @Override
            public void started(SessionInfo s) {}

            @Override
            public void stopped(SessionInfo s) {
                if (s.name().equals(name)) {
                    recorded.countDown();
                }
            }
        });
        return recorded;
    }

    private List<String> partialFiles() throws Exception {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".partial")).toList();
        }
    }

    /**
     * A ring session's file is written only at its end, so no temporary file exists while it runs: a JVM
     * killed (SIGKILL: no shutdown hook, no delete at exit) during the session leaves nothing behind.
     */
    @Test
    void aRunningRingSessionHasNoTemporaryFileThatAKilledJvmWouldLeaveBehind() throws Exception {
        start("r", SessionRequest.Mode.RING, "r.pftrace");
        assertEquals(List.of(), partialFiles(), "nothing beside the target while the session runs");
        assertTrue(Files.notExists(dir.resolve("r.pftrace")));
        registry.stop("r");
        assertTrue(packets(dir.resolve("r.pftrace")).get(1).hasTraceConfig(), "written whole at its end");
        assertEquals(List.of(), partialFiles());
    }

    /** Still refused at its start: a directory that exists but where no file can be made (not even by root). */
    @Test
    void aRingSessionIntoADirectoryThatCannotBeWrittenIsRefusedAtItsStartNamingTheFile() {
        Path target = Path.of("/proc/jtrace-test.pftrace");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.start(new SessionRequest("x", TraceConfig.newBuilder()
                        .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64))
                        .addDataSources(TraceConfig.DataSource.newBuilder()
                                .setConfig(DataSourceConfig.newBuilder().setName("x")))
                        .build(), SessionRequest.Mode.RING, target)));
        assertTrue(e.getMessage().startsWith("cannot write the trace file '" + target + "'"), e.getMessage());
        assertEquals(List.of(), registry.getSessions());
    }

    /**
     * A ring file that cannot be put in place at the session's end (a directory now in the way) is one
     * error in the log, naming the file, whether the session is stopped or ends as the JVM exits; the
     * "ended" line only marks the trace incomplete.
     */
    @Test
    void aRingFileThatCannotBePutInPlaceAtTheEndIsLoggedOnceNamingTheFile() throws Exception {
        for (boolean atExit : new boolean[] {false, true}) {
            String name = atExit ? "at-exit" : "stopped";
            Path target = dir.resolve(name + ".pftrace");
            start(name, SessionRequest.Mode.RING, name + ".pftrace");
            Files.createDirectories(target.resolve("in-the-way"));
            java.util.concurrent.CountDownLatch recorded = endOf(name);
            try (io.jtrace.agent.tracks.CapturedStderr log = new io.jtrace.agent.tracks.CapturedStderr()) {
                if (atExit) {
                    registry.stopAllAtExit();
                } else {
                    // Told to the one who stopped it, not logged (again).
                    assertTrue(assertThrows(IllegalStateException.class, () -> registry.stop(name)).getMessage()
                            .contains("writing " + target + " failed"));
                }
                assertTrue(recorded.await(30, java.util.concurrent.TimeUnit.SECONDS), "the end is recorded");
                String failure = "writing " + target + " failed";
                assertEquals(1, log.linesContaining(failure), name + ": " + log.lines());
                String line = log.lines().stream().filter(l -> l.contains(failure)).findFirst().orElseThrow();
                assertTrue(line.contains("ERROR"), line);
                assertEquals(1, log.lines().stream().filter(l -> l.contains("jtrace: ended session '" + name + "'")
                        && l.contains("trace incomplete")).count(), name + ": " + log.lines());
            }
            SessionInfo ended = registry.getSessions().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
            assertTrue(ended.error().startsWith("writing " + target + " failed"), ended.error());
            assertEquals(List.of(), partialFiles(), "no temporary file left after the failure");
        }
    }
    /**
     * A streamed session whose file fails while it runs (a pipe whose reader went away) stops by itself:
     * the log has the failed write once, as it happened, with its cause, not again for the close that
     * follows it, and the session's end says the trace is incomplete.
     */
    @Test
    void aStreamedFileThatFailsWhileTheSessionRunsIsLoggedOnceNamingTheFile() throws Exception {
        Path fifo = dir.resolve("reader-goes-away.pftrace");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo");
        // The reader takes the first byte, holds the pipe open until the session has started (its start
        // writes and syncs the first packets), then goes away: the session's next write into the pipe fails.
        java.util.concurrent.CountDownLatch startedWriting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<Integer> reader = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (java.io.InputStream in = Files.newInputStream(fifo)) {
                int read = in.read(new byte[1]);
                startedWriting.await(30, java.util.concurrent.TimeUnit.SECONDS);
                return read;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        });
        java.util.concurrent.CountDownLatch recorded = endOf("pipe");
        TraceConfig config = TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(256))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("x")))
                .setFlushPeriodMs(20).setFileWritePeriodMs(20)
                // The next write, once the reader is gone: a clock snapshot every 50 ms (10 s by default).
                .setBuiltinDataSources(TraceConfig.BuiltinDataSource.newBuilder().setSnapshotIntervalMs(50))
                .build();
        try (io.jtrace.agent.tracks.CapturedStderr log = new io.jtrace.agent.tracks.CapturedStderr()) {
            try {
                registry.start(new SessionRequest("pipe", config, SessionRequest.Mode.FILE, fifo));
            } finally {
                startedWriting.countDown();
            }
            assertEquals(1, reader.get(30, java.util.concurrent.TimeUnit.SECONDS), "the reader got a byte");
            assertTrue(recorded.await(30, java.util.concurrent.TimeUnit.SECONDS), "the failed session stops by itself: " + log.lines());
            String failure = "writing " + fifo + " failed, stopping the session";
            List<String> failures = log.lines().stream().filter(l -> l.contains(failure)).toList();
            assertEquals(1, failures.size(), log.lines().toString());
            assertTrue(failures.get(0).contains("ERROR"), failures.get(0));
            assertEquals(0, log.linesContaining("finishing " + fifo + " failed"), log.lines().toString());
            assertEquals(1, log.linesContaining("trace " + fifo + " is incomplete"), log.lines().toString());
        }
        SessionInfo ended = registry.getSessions().stream().filter(s -> s.name().equals("pipe")).findFirst().orElseThrow();
        assertTrue(ended.error().contains(fifo.toString()), ended.error());
    }

    /**
     * A session streamed into a pipe reports, once it ended, the bytes that went through the pipe: a pipe
     * has no size to read afterwards, as a file has.
     */
    @Test
    void aSessionStreamedIntoAPipeReportsTheBytesItWroteThereOnceItEnded() throws Exception {
        Path fifo = dir.resolve("read-to-the-end.pftrace");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo");
        java.util.concurrent.CompletableFuture<byte[]> reader = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (java.io.InputStream in = Files.newInputStream(fifo)) {
                return in.readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        java.util.concurrent.CountDownLatch recorded = endOf("pipe");
        start("pipe", SessionRequest.Mode.FILE, fifo.getFileName().toString());
        registry.stop("pipe");
        assertTrue(recorded.await(30, java.util.concurrent.TimeUnit.SECONDS), "the session ended");
        byte[] read = reader.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(packets(read).size() > 0, "the pipe carried a trace");
        SessionInfo ended = registry.getSessions().stream().filter(s -> s.name().equals("pipe")).findFirst().orElseThrow();
        assertEquals("", ended.error());
        assertEquals(read.length, ended.bytesWritten(), "bytes written, as the pipe's reader counted them");
        assertTrue(SessionInfos.line(ended).contains(", " + read.length + " bytes written"), SessionInfos.line(ended));
    }
}
