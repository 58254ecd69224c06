package io.jtrace.cli.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.cli.BurstDataSource;
import io.jtrace.cli.InProcessConsumer;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.ProcessIdentity;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jtrace record} end to end against a real in-process tracing service and producer. */
class RecordCommandTest {
    private static final String NL = System.lineSeparator();

    @TempDir
    Path dir;

    private final TracingService service = new TracingService(ServiceConfig.defaults());
    private final List<ProducerClient> producers = new ArrayList<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CapturedStop stop = new CapturedStop();

    /** A daemon's socket is there unless a test removes it: the connector stands for what answers on it. */
    @BeforeEach
    void daemonSocket() throws IOException {
        Files.createDirectories(dir.resolve("sockets"));
        Files.createFile(dir.resolve("sockets").resolve("consumer.sock"));
    }

    @AfterEach
    void close() {
        producers.forEach(ProducerClient::close);
        service.close();
    }

    /** What a Ctrl-C would run, kept for the test to run. */
    private static final class CapturedStop implements StopHook {
        final AtomicReference<Runnable> installed = new AtomicReference<>();
        volatile boolean removed;

        @Override
        public void install(Runnable stop) {
            installed.set(stop);
        }

        @Override
        public void remove() {
            removed = true;
        }
    }

    private BurstDataSource producer(String sourceName, int bursts, int packetsPerBurst, int padding) {
        BurstDataSource source = new BurstDataSource(sourceName, bursts, packetsPerBurst, padding);
        ProducerClient client = new ProducerClient("test", List.of(source));
        client.connect(p -> service.connectProducer(p, "test", 1000, 4242));
        producers.add(client);
        return source;
    }

    /** A consumer of another user than the service's: the service writes no file for it, the command reads. */
    private InProcessConsumer reader() {
        return new InProcessConsumer(service, ProcessIdentity.uid() + 1000);
    }

    /** The config of the session that ran: the one after the service refused to write the file itself. */
    private static TraceConfig sessionConfig(InProcessConsumer consumer) {
        assertEquals(2, consumer.configs.size(), "a refused file session, then the session the command reads");
        assertTrue(consumer.configs.get(0).getWriteIntoFile(), "the service was asked to write the file first");
        return consumer.configs.get(1);
    }

    /** Off a terminal, every progress update is a line: no quiet period (ProgressLineTest has that). */
    private RecordCommand command(ConsumerConnector connector, boolean terminal) {
        return new RecordCommand(connector, new SocketPaths(dir.resolve("sockets")), print(out), print(err), terminal,
                stop, 0);
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path config(String text) throws IOException {
        Path file = dir.resolve("config.pbtxt");
        Files.writeString(file, text);
        return file;
    }

    private static List<TracePacket> packets(Path file) throws IOException {
        return Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
    }

    private static List<String> burstNames(List<TracePacket> packets) {
        return packets.stream().filter(BurstDataSource::isBurstPacket).map(p -> p.getTrackEvent().getName()).toList();
    }

    private static List<String> expectedNames(int bursts, int perBurst) {
        List<String> names = new ArrayList<>();
        for (int b = 0; b < bursts; b++) {
            for (int i = 0; i < perBurst; i++) {
                names.add(BurstDataSource.packetName(b, i));
            }
        }
        return names;
    }

    private String expectedSummaryLinePrefix(Path file, List<TracePacket> packets) throws IOException {
        return String.format("%s: %,d bytes, %,d packets in ", file, Files.size(file), packets.size());
    }

    @Test
    void readsTheBuffersEveryPeriodSoARingBufferSmallerThanTheTraceLosesNothingAndCtrlCSavesIt() throws Exception {
        int bursts = 10;
        int perBurst = 40;
        BurstDataSource source = producer("test.bursts", bursts, perBurst, 1000);
        InProcessConsumer consumer = reader();
        AtomicInteger delivered = new AtomicInteger();
        consumer.tap = bytes -> {
            try {
                if (BurstDataSource.isBurstPacket(TracePacket.parseFrom(bytes))) {
                    delivered.incrementAndGet();
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
        Path config = config("buffers { size_kb: 64 fill_policy: RING_BUFFER }\n"
                + "data_sources { config { name: \"test.bursts\" } }\n"
                + "write_into_file: true\nfile_write_period_ms: 100\n");
        Path target = dir.resolve("out.pftrace");
        RecordCommand command = command(socket -> consumer, true);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                () -> command.run(new String[] {"-c", config.toString(), "-o", target.toString()}));

        // Each burst (40 KB) is written only once the previous one is in the file: 400 KB go through a
        // 64 KB ring buffer, which only reads every period can empty in time.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (delivered.get() < bursts * perBurst && System.nanoTime() < deadline) {
            source.release(delivered.get() / perBurst + 1);
            Thread.sleep(5);
        }
        assertEquals(bursts * perBurst, delivered.get(), "every burst reached the file while recording");
        stop.installed.get().run(); // what Ctrl-C runs: returns once the file is saved
        assertTrue(Files.exists(target) && out().endsWith(" s, no loss" + NL),
                "the stop returns (and the JVM may exit) only once the file is saved and reported: " + out());
        assertEquals(0, exit.get(30, TimeUnit.SECONDS), err());

        List<TracePacket> packets = packets(target);
        assertEquals(expectedNames(bursts, perBurst), burstNames(packets), "every packet once, in order");
        assertTrue(packets.get(0).hasClockSnapshot(), "the service's header comes first");
        TraceConfig sent = sessionConfig(consumer);
        assertFalse(sent.getWriteIntoFile() || sent.hasFileWritePeriodMs(),
                "the service gets no file to write: the command reads the buffers itself");
        assertTrue(packets.stream().anyMatch(p -> p.hasTraceConfig() && p.getTraceConfig().equals(sent)));
        TracePacket last = packets.get(packets.size() - 1);
        assertTrue(last.hasTraceStats(), "the last read, after the end, brings the service's trace stats");
        TraceStats.BufferStats buffer = last.getTraceStats().getBufferStats(0);
        assertEquals(0, buffer.getChunksOverwritten(), buffer.toString());
        assertTrue(buffer.getBytesWritten() > 5 * 64 * 1024, "the trace is larger than its buffer: " + buffer);
        assertTrue(consumer.reads >= bursts, "read every period, not only at the end: " + consumer.reads);

        assertTrue(out().startsWith(expectedSummaryLinePrefix(target, packets)), out());
        assertTrue(out().endsWith(" s, no loss" + NL), out());
        assertTrue(err().contains("\rrecording 0:0"), "a terminal gets its progress line rewritten: " + err());
        assertTrue(consumer.closed && stop.removed);
        assertTrue(service.status().get().sessions().isEmpty(), "the session is freed");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("config.pbtxt", "out.pftrace", "sockets"), files.map(p -> p.getFileName().toString()).sorted().toList(),
                    "no temporary file is left");
        }
    }

    @Test
    void theServiceOfTheConsumersOwnUserWritesTheFileItselfAndItsRingOverwritesNothing() throws Exception {
        int bursts = 10;
        int perBurst = 40;
        BurstDataSource source = producer("test.bursts", bursts, perBurst, 1000);
        source.release(bursts); // 400 KB at once into a 64 KB ring: only the service's own file drain keeps up
        InProcessConsumer consumer = new InProcessConsumer(service);
        Path config = config("buffers { size_kb: 64 fill_policy: RING_BUFFER }\n"
                + "data_sources { config { name: \"test.bursts\" } }\nduration_ms: 1500\n");
        Path target = dir.resolve("written.pftrace");
        int exit = command(socket -> consumer, false).run(new String[] {"-c", config.toString(), "-o", target.toString()});
        assertEquals(0, exit, err());

        assertEquals(1, consumer.configs.size());
        TraceConfig sent = consumer.configs.get(0);
        assertTrue(sent.getWriteIntoFile(), "the service writes the file");
        assertTrue(Path.of(sent.getOutputPath()).getFileName().toString().startsWith(".written.pftrace"),
                "into a temporary file beside the target: " + sent.getOutputPath());
        assertEquals(consumer.reads, 0, "the command reads nothing itself");
        List<TracePacket> packets = packets(target);
        TracePacket last = packets.get(packets.size() - 1);
        assertTrue(last.hasTraceStats(), "the service finished the file with its trace stats");
        TraceStats.BufferStats buffer = last.getTraceStats().getBufferStats(0);
        // The buffer's stats first: a packet missing from the file is explained by them (an overwrite).
        assertEquals(0, buffer.getChunksOverwritten(), buffer.toString());
        assertEquals(expectedNames(bursts, perBurst), burstNames(packets), "every packet once, in order: " + buffer);
        assertTrue(buffer.getBytesWritten() > 5 * 64 * 1024, "the trace is larger than its buffer: " + buffer);
        assertTrue(out().startsWith(expectedSummaryLinePrefix(target, packets)), out());
        assertTrue(out().endsWith(" s, no loss" + NL), out());
        assertTrue(service.status().get().sessions().isEmpty(), "the session is freed");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("config.pbtxt", "sockets", "written.pftrace"),
                    files.map(p -> p.getFileName().toString()).sorted().toList(), "no temporary file is left");
        }
    }

    @Test
    void flagsMakeTheAgentsConfigAndTheDurationEndsTheRecording() throws Exception {
        BurstDataSource source = producer("track_event", 1, 30, 10);
        source.release(1);
        InProcessConsumer consumer = reader();
        Path target = dir.resolve("flags.pftrace");
        int exit = command(socket -> consumer, false).run(new String[] {"--time", "1500ms", "--buffer", "1m",
                "--sources", "track_event", "--categories", "app,db*", "-o", target.toString()});
        assertEquals(0, exit, err());

        TraceConfig sent = sessionConfig(consumer);
        assertEquals(1500, sent.getDurationMs());
        assertEquals(1024, sent.getBuffers(0).getSizeKb());
        assertEquals(1, sent.getDataSourcesCount());
        assertEquals("track_event", sent.getDataSources(0).getConfig().getName());
        assertEquals(List.of("app", "db*"),
                sent.getDataSources(0).getConfig().getTrackEventConfig().getEnabledCategoriesList());
        assertEquals(5000, sent.getIncrementalStateConfig().getClearPeriodMs(), "as the agent's own sessions");

        List<TracePacket> packets = packets(target);
        assertEquals(expectedNames(1, 30), burstNames(packets));
        assertTrue(packets.get(packets.size() - 1).hasTraceStats());
        assertTrue(out().startsWith(expectedSummaryLinePrefix(target, packets)), out());
        String[] progress = err().split(NL);
        assertTrue(progress.length >= 2 && progress[1].startsWith("recording 0:0") && !err().contains("\r"),
                "off a terminal, progress comes as lines of their own: " + err());
        assertTrue(err().startsWith("jtrace record: recording the jtrace daemon into " + target + " for 1500 ms"), err());
    }

    @Test
    void aRefusedConfigExitsWith1WithTheServicesReasonAndLeavesTheTargetAsItWas() throws Exception {
        Path target = dir.resolve("kept.pftrace");
        Files.writeString(target, "old");
        InProcessConsumer consumer = reader();
        Path config = config("buffers { size_kb: 64 }\n");
        int exit = command(socket -> consumer, false).run(new String[] {"-c", config.toString(), "-o", target.toString()});
        assertEquals(1, exit);
        assertTrue(err().endsWith("jtrace record: the trace config has no data_sources" + NL), err());
        assertEquals("", out());
        assertEquals("old", Files.readString(target));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(3, files.count(), "no temporary file is left");
        }
    }

    @Test
    void maxFileSizeBytesEndsTheRecordingOnceTheFileHasThatManyBytes() throws Exception {
        BurstDataSource source = producer("test.bursts", 1, 50, 1000);
        source.release(1);
        InProcessConsumer consumer = reader();
        Path config = config("buffers { size_kb: 1024 }\ndata_sources { config { name: \"test.bursts\" } }\n"
                + "write_into_file: true\nfile_write_period_ms: 100\nmax_file_size_bytes: 20000\n");
        Path target = dir.resolve("capped.pftrace");
        // No duration and no Ctrl-C: only the file's size can end this recording.
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> command(socket -> consumer, false)
                .run(new String[] {"-c", config.toString(), "-o", target.toString()}));
        assertEquals(0, exit.get(60, TimeUnit.SECONDS), err());
        assertFalse(sessionConfig(consumer).hasMaxFileSizeBytes(), "the command, not the service, keeps the limit");
        assertTrue(Files.size(target) >= 20000, "stopped at the limit, not before: " + Files.size(target));
        List<TracePacket> packets = packets(target);
        assertEquals(expectedNames(1, 50), burstNames(packets), "what was read when the limit was reached is kept");
        assertTrue(packets.get(packets.size() - 1).hasTraceStats(), "the session ended normally");
        assertTrue(service.status().get().sessions().isEmpty(), "the session is freed");
    }

    @Test
    void aConnectionLostAfterSomeReadsKeepsWhatWasReadAndExitsWith1() throws Exception {
        BurstDataSource source = producer("test.bursts", 1, 20, 10);
        source.release(1);
        InProcessConsumer consumer = reader();
        Path config = config("buffers { size_kb: 64 }\ndata_sources { config { name: \"test.bursts\" } }\n"
                + "write_into_file: true\nfile_write_period_ms: 100\n");
        Path target = dir.resolve("partial.pftrace");
        // Reads succeed until one has delivered the burst, then the connection is gone.
        consumer.tap = bytes -> {
            try {
                if (BurstDataSource.isBurstPacket(TracePacket.parseFrom(bytes))) {
                    consumer.failReadsFrom = consumer.reads + 1;
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
        int exit = command(socket -> consumer, false).run(new String[] {"-c", config.toString(), "-o", target.toString()});
        assertEquals(1, exit);
        assertTrue(err().endsWith("jtrace record: reading the trace: connection lost (the packets read before are in "
                + target + ")" + NL), err());
        List<TracePacket> packets = packets(target);
        assertEquals(expectedNames(1, 20), burstNames(packets), "what was read before the loss is kept, whole");
        assertTrue(out().startsWith(expectedSummaryLinePrefix(target, packets)), out());
    }

    @Test
    void aRecordingsBufferDefaultsTo32MibNotAStreamedAgentSessions8() {
        assertEquals(32 * 1024, RecordOptions.parse(new String[] {"-o", "x.pftrace", "--time", "1s"}).config()
                .getBuffers(0).getSizeKb());
        assertEquals(4 * 1024, RecordOptions.parse(new String[] {"-o", "x.pftrace", "--buffer", "4m"}).config()
                .getBuffers(0).getSizeKb());
    }

    /** file_write_period_ms is a uint32: 2^31 ms or more is how often the command reads, not the default. */
    @Test
    void aConfigsFileWritePeriodOf2To31MsOrMoreIsTheReadPeriodNotTheDefault() throws Exception {
        for (long ms : new long[] {1L << 31, 0xFFFF_FFFFL}) {
            Path config = config("buffers { size_kb: 64 }\ndata_sources { config { name: \"x\" } }\nfile_write_period_ms: "
                    + ms + "\n");
            assertEquals(ms, RecordOptions.parse(new String[] {"-c", config.toString(), "-o", "x.pftrace"}).readPeriodMillis());
        }
    }

    @Test
    void anUnknownFlagIsAUsageErrorNamingIt() {
        assertEquals(2, command(socket -> { throw new AssertionError("no connection for a bad command line"); }, false)
                .run(new String[] {"--time", "1s", "--frob", "-o", "x.pftrace"}));
        assertEquals("jtrace record: unknown option '--frob'" + NL, err());
    }

    @Test
    void badValuesAreUsageErrorsNamingTheFlag() {
        String[][] cases = {
                {"--time 10 -o x", "jtrace record: --time needs a unit (ms, s, m or h), got '10'"},
                {"--buffer 12k -o x", "jtrace record: --buffer must be at least 64k, got '12k'"},
                {"--sources track_event,frob -o x", "jtrace record: --sources names unknown data source 'frob'"},
                {"--time 1s,ring -o x", "jtrace record: --time takes a value such as 10s or 64m, got '1s,ring'"},
                {"--time 1s", "jtrace record: where to? give -o <file>"},
                {"--pid abc -o x", "jtrace record: --pid needs a process id, got 'abc'"},
                {"--pid 1 --socket s -o x", "jtrace record: give either --pid or --socket, not both"},
                {"-c no-such.pbtxt -o x", "jtrace record: --config: cannot read 'no-such.pbtxt'"},
                {"-o", "jtrace record: -o needs a value"},
        };
        for (String[] c : cases) {
            err.reset();
            assertEquals(2, command(socket -> { throw new AssertionError(); }, false).run(c[0].split(" ")), c[0]);
            assertTrue(err().startsWith(c[1]), c[0] + " -> " + err());
        }
    }

    /** The service takes a config naming a data source nobody has (one may connect later); the command says so. */
    @Test
    void aDataSourceNoProducerHasIsNamedInAWarning() throws Exception {
        producer("test.bursts", 1, 10, 1000);
        Path config = config("buffers { size_kb: 64 }\ndata_sources { config { name: \"test.bursts\" } }\n"
                + "data_sources { config { name: \"test.burts\" } }\nduration_ms: 200\n");
        Path target = dir.resolve("typo.pftrace");
        assertEquals(0, command(socket -> new InProcessConsumer(service), false)
                .run(new String[] {"-c", config.toString(), "-o", target.toString()}), err());
        assertTrue(err().startsWith("jtrace record: warning: no producer connected to the service has data source "
                + "'test.burts' (they have: test.bursts); nothing is recorded from it unless one connects" + NL), err());
    }

    @Test
    void configAndSessionFlagsDoNotMix() throws Exception {
        Path config = config("buffers { size_kb: 64 }\ndata_sources { config { name: \"x\" } }\n");
        assertEquals(2, command(socket -> { throw new AssertionError(); }, false)
                .run(new String[] {"-c", config.toString(), "--time", "1s", "-o", "x"}));
        assertEquals("jtrace record: --time cannot go with --config: set it in the trace config" + NL, err());
        err.reset();
        Files.writeString(config, "buffers { size_kb: 64 }\nfrob: 1\n");
        assertEquals(2, command(socket -> { throw new AssertionError(); }, false)
                .run(new String[] {"-c", config.toString(), "-o", "x"}));
        assertEquals("jtrace record: " + config + ": trace config has an unknown field: 'TraceConfig.frob' (line 2, column 1)"
                + NL, err());
    }

    @Test
    void withoutADaemonItExitsWith3AndSaysHowToStartOne() throws IOException {
        Files.delete(dir.resolve("sockets").resolve("consumer.sock"));
        assertEquals(3, command(socket -> { throw new AssertionError(); }, false)
                .run(new String[] {"--time", "1s", "-o", dir.resolve("x").toString()}));
        assertEquals("jtrace record: no jtrace daemon at " + dir.resolve("sockets").resolve("consumer.sock")
                + ": start one with `java -jar jtrace.jar daemon`, or give --pid" + NL, err());
    }

    @Test
    void aSocketNobodyAnswersOnExitsWith3() {
        Path socket = dir.resolve("nobody.sock");
        assertEquals(3, command(s -> { throw new IOException("connection refused"); }, false)
                .run(new String[] {"--socket", socket.toString(), "--time", "1s", "-o", dir.resolve("x").toString()}));
        assertEquals("jtrace record: cannot connect to " + socket + ": connection refused" + NL, err());
        assertFalse(Files.exists(dir.resolve("x")));
    }

    @Test
    void aPidWhoseSocketExistsIsRecordedThroughIt() throws Exception {
        BurstDataSource source = producer("track_event", 1, 5, 10);
        source.release(1);
        long pid = ProcessHandle.current().pid();
        Path socket = new SocketPaths(dir.resolve("sockets")).jvmConsumerSocket(pid);
        Files.createDirectories(socket.getParent());
        Files.createFile(socket);
        List<Path> connected = new ArrayList<>();
        int exit = command(s -> {
            connected.add(s);
            return reader();
        }, false).run(new String[] {"--pid", Long.toString(pid), "--time", "200ms", "--sources", "track_event",
                "-o", dir.resolve("pid.pftrace").toString()});
        assertEquals(0, exit, err());
        assertEquals(List.of(socket), connected);
        assertEquals(expectedNames(1, 5), burstNames(packets(dir.resolve("pid.pftrace"))));
    }

    @Test
    void aPidThatIsNoProcessExitsWith3() {
        assertEquals(3, command(socket -> { throw new AssertionError(); }, false)
                .run(new String[] {"--pid", "999999999", "--time", "1s", "-o", dir.resolve("x").toString()}));
        assertEquals("jtrace record: no process with pid 999999999" + NL, err());
    }

    @Test
    void anOutputThatCannotBeWrittenExitsWith1BeforeRecording() throws Exception {
        Files.writeString(dir.resolve("file"), "");
        InProcessConsumer consumer = reader();
        Path target = dir.resolve("file").resolve("x.pftrace");
        assertEquals(1, command(socket -> consumer, false).run(new String[] {"--time", "1s", "-o", target.toString()}));
        assertTrue(err().startsWith("jtrace record: cannot write " + target + ": "), err());
        assertTrue(consumer.configs.isEmpty() && consumer.closed, "nothing started, the connection closed");
    }

    @Test
    void helpPrintsTheCommandsUsageAndDoesNothingElse() {
        assertEquals(0, command(socket -> { throw new AssertionError(); }, false)
                .run(new String[] {"--pid", "1", "--help"}));
        assertEquals(RecordCommand.usage(), out());
        assertTrue(out().contains("-o, --out <file>") && out().contains("Exit codes: 0 recorded"));
    }
}
