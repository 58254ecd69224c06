package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.TraceWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded concurrency stress test of the whole write and read path: 8 writer threads, each with its own
 * {@link TraceWriter}, write through one small SMB (64 KiB, 4 KiB pages) of a real {@link ProducerClient}
 * into a real {@link TracingService}, while a consumer thread calls {@code readBuffers} over and over as
 * they write. Packets of 1 B to 64 KiB with nested messages span chunks as fragments and leave size fields
 * behind as patches; the SMB is small enough to fill, so writers stall and sometimes drop.
 *
 * <p>Every packet's content is a pure function of (seed, writer, seq), so the consumer checks each
 * delivered packet byte by byte against a regenerated copy without the writers keeping what they
 * wrote. At the end, per writer: every packet written was delivered exactly once, intact and in order,
 * or counted as dropped by its writer, and the first packet delivered after any drop carries
 * {@code previous_packet_dropped} (and no other packet does).
 *
 * <p>About 1,000,000 packets by default; {@code -Djtrace.stress=true} writes 10 times as many. The seed
 * is random per run and printed; {@code -Djtrace.stress.seed=N} replays the same packets (the
 * interleaving of threads of course differs).
 */
class ServiceStressTest {
    private static final int SMB_SIZE = 64 * 1024;
    private static final int PAGE_SIZE = 4096;
    private static final int WRITERS = 8;
    private static final boolean STRESS = "true".equals(System.getProperty("jtrace.stress"));
    private static final int PACKETS_PER_WRITER = (STRESS ? 10_000_000 : 1_000_000) / WRITERS;
    private static final int BUFFER_KB = 32 * 1024;
    /**
     * Writers keep at most this many bytes (as {@link Content#weight()} counts them) written into the SMB
     * and not yet delivered to the consumer, so the 32 MiB trace buffer never has to overwrite: 8 writers ×
     * 1 MiB (plus a packet each) is a quarter of it. Packets a writer dropped do not count: they never
     * reach the buffer, and counting them until the writer's next packet got through made a writer whose
     * last packets were dropped wait for a delivery only that next packet could bring. A liveness wait,
     * bounded by {@link #NO_PROGRESS_LIMIT_NANOS}.
     */
    private static final long WINDOW_BYTES = 1024 * 1024;
    /** Liveness only: how long a writer may wait for the consumer, or the consumer see no packets, before we call it hung. */
    private static final long NO_PROGRESS_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long RUN_LIMIT_MINUTES = STRESS ? 60 : 10;
    private static final int PRODUCER_UID = 2345;
    private static final int PRODUCER_PID = 5432;
    private static final int MAX_ERRORS_SHOWN = 20;

    @TempDir
    Path smbDir;

    @RegisterExtension
    final Closer closer = new Closer();

    /**
     * STALL_THEN_DROP: writers wait up to 100 ms for a free chunk, so drops are rare. DROP: a writer drops
     * as soon as the SMB is full, so the run also exercises drops in the middle of packets that span
     * chunks (their patches are sent anyway, their head fragments discarded by the reader).
     */
    @ParameterizedTest
    @EnumSource(value = DataSourceConfig.BufferExhaustedPolicy.class, names = {"BUFFER_EXHAUSTED_STALL_THEN_DROP",
            "BUFFER_EXHAUSTED_DROP"})
    void everyPacketIsDeliveredOnceIntactInOrderOrCountedAsDroppedAndReported(
            DataSourceConfig.BufferExhaustedPolicy policy) throws Exception {
        long seed = Long.getLong("jtrace.stress.seed", ThreadLocalRandom.current().nextLong());
        String run = policy + ", seed " + seed + " (replay with -Djtrace.stress.seed=" + seed + ")";
        long started = System.nanoTime();

        TracingService service = closer.add(new TracingService(new ServiceConfig(SMB_SIZE, PAGE_SIZE, smbDir, 4,
                1024L * 1024 * 1024, 30_000)));
        Errors errors = new Errors();
        Verifier verifier = new Verifier(seed, errors);
        CompletableFuture<WriterThread[]> writersStarted = new CompletableFuture<>();
        closer.add(ServiceTesting.producerClient(service, "stress-producer", PRODUCER_UID, PRODUCER_PID,
                new TestDataSource("stress",
                        (context, config) -> new StressInstance(context, seed, verifier, errors, writersStarted))));
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());

        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(BUFFER_KB)
                        .setFillPolicy(TraceConfig.BufferConfig.FillPolicy.RING_BUFFER))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder()
                        .setName("stress")
                        .setBufferExhaustedPolicy(policy)))
                .build()));
        WriterThread[] writers = await(writersStarted);
        ConsumerThread reader = new ConsumerThread(consumer, verifier, errors);
        reader.start();

        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(RUN_LIMIT_MINUTES);
        for (WriterThread w : writers) {
            w.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            assertFalse(w.isAlive(), "writer " + w.index + " still running after " + RUN_LIMIT_MINUTES + " min (hung?); "
                    + run + "\n" + errors);
        }
        reader.finish();
        assertFalse(reader.isAlive(), "the consumer thread did not stop");
        long readsWhileWriting = reader.reads;
        long deliveredWhileWriting = verifier.producerPackets;

        await(consumer.disableTracing());
        long lastRead = verifier.read(consumer);
        TraceStats stats = verifier.traceStats;

        assertTrue(errors.isEmpty(), errors + "\n" + run);
        assertNotNull(stats, "the final read ends with trace_stats; " + run);
        assertEquals(1, stats.getBufferStatsCount());
        TraceStats.BufferStats buffer = stats.getBufferStats(0);
        String statsText = "buffer stats " + buffer.toString().replace('\n', ' ') + "; " + run;
        assertEquals(0, buffer.getChunksOverwritten(), "the consumer kept up: nothing overwritten; " + statsText);
        assertEquals(0, buffer.getChunksDiscarded(), statsText);
        assertEquals(0, buffer.getAbiViolations(), statsText);
        assertEquals(0, buffer.getPatchesFailed(), statsText);
        assertEquals(0, stats.getInvalidPackets(), "invalid packets; " + statsText);
        assertEquals(0, stats.getFlushesFailed(), "the flush at disable was answered; " + statsText);
        assertTrue(buffer.getPatchesSucceeded() > 0, "the run exercised patches; " + statsText);

        long totalWritten = 0;
        long totalDropped = 0;
        long totalDelivered = 0;
        long dropRuns = 0;
        StringBuilder summary = new StringBuilder();
        Map<Integer, Integer> writerOfSequence = new HashMap<>();
        for (WriterThread w : writers) {
            Verifier.Sequence s = verifier.sequences[w.index];
            String who = "writer " + w.index + " (writer id " + w.writerId + "), " + run;
            assertTrue(w.written >= PACKETS_PER_WRITER, "packets written by " + who);
            assertEquals(w.written, w.packetsWritten + w.droppedPackets, "TraceWriter's own counts, " + who);
            assertEquals(w.droppedPackets, w.dropped.cardinality(), "drops seen packet by packet, " + who);
            assertFalse(w.dropped.get((int) w.written - 1), "the writer's last packet got through, " + who);
            BitSet both = (BitSet) s.delivered.clone();
            both.and(w.dropped);
            assertTrue(both.isEmpty(), both.cardinality() + " packets counted as dropped were delivered, first seq "
                    + both.nextSetBit(0) + ", " + who);
            BitSet missing = new BitSet();
            missing.set(0, (int) w.written);
            missing.andNot(s.delivered);
            missing.andNot(w.dropped);
            assertTrue(missing.isEmpty(), missing.cardinality() + " packets were neither delivered nor counted as dropped,"
                    + " first seq " + missing.nextSetBit(0) + ", " + who);
            assertEquals(s.delivered.cardinality(), s.deliveredCount, "no packet delivered twice, " + who);
            assertEquals(w.written, s.deliveredCount + w.droppedPackets, "delivered + dropped == written, " + who);
            // previous_packet_dropped: on the first packet delivered after each drop, and on no other.
            BitSet expectedFlags = new BitSet();
            long runs = 0;
            int previous = -1;
            for (int seq = s.delivered.nextSetBit(0); seq >= 0; seq = s.delivered.nextSetBit(seq + 1)) {
                if (seq - previous > 1) {
                    expectedFlags.set(seq);
                    runs++;
                }
                previous = seq;
            }
            if (!expectedFlags.equals(s.flagged)) {
                BitSet unreported = (BitSet) expectedFlags.clone();
                unreported.andNot(s.flagged);
                BitSet spurious = (BitSet) s.flagged.clone();
                spurious.andNot(expectedFlags);
                fail(unreported.cardinality() + " drops not reported by previous_packet_dropped (first on seq "
                        + unreported.nextSetBit(0) + "), " + spurious.cardinality() + " packets flagged without a drop"
                        + " before them (first seq " + spurious.nextSetBit(0) + "), " + who);
            }
            assertEquals(1, s.firstOnSequence, "first_packet_on_sequence once, on the first packet, " + who);
            assertNotEquals(0, s.sequenceId, who);
            Integer clash = writerOfSequence.put(s.sequenceId, w.index);
            assertEquals(null, clash, "writers " + clash + " and " + w.index + " share sequence id " + s.sequenceId);
            totalWritten += w.written;
            totalDropped += w.droppedPackets;
            totalDelivered += s.deliveredCount;
            dropRuns += runs;
            summary.append(String.format(" w%d: %d dropped in %d runs;", w.index, w.droppedPackets, runs));
        }
        assertEquals(totalWritten, totalDelivered + totalDropped, "delivered + dropped == written; " + run);
        assertTrue(totalWritten >= (long) WRITERS * PACKETS_PER_WRITER);
        // Each drop marker stands for one or more packets lost in a row, and is read before the packet it flags.
        assertTrue(buffer.getTraceWriterPacketLoss() >= dropRuns && buffer.getTraceWriterPacketLoss() <= totalDropped,
                "trace_writer_packet_loss " + buffer.getTraceWriterPacketLoss() + " for " + totalDropped
                        + " packets dropped in " + dropRuns + " runs; " + run);
        assertTrue(readsWhileWriting > 1 && deliveredWhileWriting > 0,
                "the consumer read while the writers wrote (" + readsWhileWriting + " reads, " + deliveredWhileWriting
                        + " packets); " + run);
        System.out.printf("ServiceStressTest: %s; %d packets written, %d delivered (%d while writing, in %d reads;"
                        + " %d in the final read), %d dropped; %d chunks, %d patches, %d chunks out of order; %.1f s;%s%n",
                run, totalWritten, totalDelivered, deliveredWhileWriting, readsWhileWriting, lastRead, totalDropped,
                buffer.getChunksWritten(), buffer.getPatchesSucceeded(), buffer.getChunksCommittedOutOfOrder(),
                (System.nanoTime() - started) / 1e9, summary);
    }

    /** Thread-safe collection of failures seen on the writer and consumer threads. */
    static final class Errors {
        private final AtomicLong count = new AtomicLong();
        private final ConcurrentLinkedQueue<String> first = new ConcurrentLinkedQueue<>();

        void add(String message) {
            if (count.incrementAndGet() <= MAX_ERRORS_SHOWN) {
                first.add(message);
            }
        }

        void add(String message, Throwable t) {
            StringWriter sw = new StringWriter();
            t.printStackTrace(new PrintWriter(sw));
            add(message + ": " + sw);
        }

        boolean isEmpty() {
            return count.get() == 0;
        }

        @Override
        public String toString() {
            return count.get() + " error(s), first " + first.size() + ":\n  " + String.join("\n  ", first);
        }
    }

    /**
     * The content of one packet, a pure function of (seed, writer index, seq): a payload of 1 B .. 64 KiB
     * (90% up to 64 B, 9% up to 1 KiB, 1% up to 64 KiB) of random bytes, cut into pieces of 1..256 bytes.
     *
     * <p>Written as {@code TracePacket { timestamp(8) = seq, timestamp_clock_id(58) = writer + 1,
     * track_event(11) { type(9) = INSTANT, debug_annotations(4) { name_iid(1) = i, proto_value(14) =
     * piece }..., track_uuid(11) = tag } }}, where every third annotation nests its piece one level deeper,
     * in {@code dict_entries(11) { name_iid(1) = i, proto_value(14) = piece }}. Up to four size fields are
     * open whenever a piece crosses into a new chunk, so fragments leave patches behind.
     */
    static final class Content {
        static final int MAX_PAYLOAD = 64 * 1024;
        static final int MAX_PIECE = 256;

        final byte[] payload = new byte[MAX_PAYLOAD];
        final int[] pieceEnds = new int[MAX_PAYLOAD + 1];
        int length;
        int pieces;
        long tag;

        void fill(long seed, int writer, long seq) {
            SplittableRandom r = new SplittableRandom(mix64(seed ^ mix64((long) writer << 40 ^ seq)));
            tag = r.nextLong();
            int kind = r.nextInt(100);
            if (kind < 90) {
                length = 1 + r.nextInt(64);
            } else if (kind < 99) {
                length = 65 + r.nextInt(1024 - 64);
            } else {
                length = 1025 + r.nextInt(MAX_PAYLOAD - 1024);
            }
            for (int i = 0; i < length; i += 8) {
                long bits = r.nextLong();
                for (int j = i; j < Math.min(length, i + 8); j++) {
                    payload[j] = (byte) bits;
                    bits >>>= 8;
                }
            }
            pieces = 0;
            int at = 0;
            while (at < length) {
                at = Math.min(length, at + 1 + r.nextInt(MAX_PIECE));
                pieceEnds[pieces++] = at;
            }
        }

        /** About the packet's encoded size; writer and consumer compute the same value for the same packet. */
        long weight() {
            return length + 12L * pieces + 48;
        }

        void write(ProtoWriter p, int writer, long seq) {
            p.varint(8, seq);
            p.varint(58, writer + 1);
            p.beginNested(11);
            p.varint(9, TrackEvent.Type.TYPE_INSTANT.getNumber());
            int from = 0;
            for (int i = 0; i < pieces; i++) {
                p.beginNested(4);
                p.varint(1, i);
                if (i % 3 == 2) {
                    p.beginNested(11);
                    p.varint(1, i);
                    p.bytes(14, payload, from, pieceEnds[i] - from);
                    p.endNested();
                } else {
                    p.bytes(14, payload, from, pieceEnds[i] - from);
                }
                p.endNested();
                from = pieceEnds[i];
            }
            p.varint(11, tag);
            p.endNested();
        }

        /** Checks what protobuf-java parsed against this content; returns a complaint or null. */
        String check(TracePacket packet) {
            TrackEvent e = packet.getTrackEvent();
            if (e.getType() != TrackEvent.Type.TYPE_INSTANT || e.getTrackUuid() != tag
                    || e.getDebugAnnotationsCount() != pieces) {
                return "track event differs: " + e.getType() + ", " + e.getDebugAnnotationsCount() + " annotations";
            }
            int from = 0;
            for (int i = 0; i < pieces; i++) {
                DebugAnnotation a = e.getDebugAnnotations(i);
                if (i % 3 == 2) {
                    if (a.getDictEntriesCount() != 1) {
                        return "annotation " + i + " has " + a.getDictEntriesCount() + " dict entries";
                    }
                    a = a.getDictEntries(0);
                }
                byte[] piece = a.getProtoValue().toByteArray();
                if (a.getNameIid() != i || !Arrays.equals(piece, 0, piece.length, payload, from, pieceEnds[i])) {
                    return "annotation " + i + " differs";
                }
                from = pieceEnds[i];
            }
            return null;
        }

        private static long mix64(long z) {
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            return z ^ (z >>> 33);
        }
    }

    /** Encodes a packet as a TraceWriter does (4-byte redundant sizes) into one heap buffer: the expected bytes. */
    static final class Regenerator implements SpaceProvider {
        /** Enough for 64 KiB cut into 1-byte pieces, each with its annotation's overhead. */
        private final ByteBuffer buf = ByteBuffer.allocate(2 * 1024 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        private final ProtoWriter proto = new ProtoWriter(this);

        /** Returns the packet's length; its bytes are {@code array()[RESERVED_SIZE_BYTES ..][..length]}. */
        int encode(Content c, int writer, long seq) {
            proto.reset(buf, 0, buf.capacity());
            proto.beginFrame();
            c.write(proto, writer, seq);
            return proto.endNested();
        }

        byte[] array() {
            return buf.array();
        }

        @Override
        public void makeRoom(ProtoWriter writer, int needed) {
            throw new IllegalStateException("regenerated packet larger than " + buf.capacity());
        }

        @Override
        public void patchSize(ProtoWriter writer, int level, int size) {
            throw new IllegalStateException("a regenerated packet has one fragment");
        }
    }

    /** The data source instance: starts the writer threads; they flush and close their writers themselves. */
    static final class StressInstance implements DataSourceInstance {
        private final DataSourceContext context;
        private final long seed;
        private final Verifier verifier;
        private final Errors errors;
        private final CompletableFuture<WriterThread[]> started;

        StressInstance(DataSourceContext context, long seed, Verifier verifier, Errors errors,
                       CompletableFuture<WriterThread[]> started) {
            this.context = context;
            this.seed = seed;
            this.verifier = verifier;
            this.errors = errors;
            this.started = started;
        }

        @Override
        public void start() {
            WriterThread[] threads = new WriterThread[WRITERS];
            for (int i = 0; i < WRITERS; i++) {
                threads[i] = new WriterThread(i, context, seed, verifier, errors);
                threads[i].start();
            }
            started.complete(threads);
        }

        @Override
        public void flush() {
            // The writers belong to their threads; each flushes its last chunk when it closes.
        }

        @Override
        public void stop() {
            // The test stops the session only after every writer thread ended.
        }
    }

    /** One writer: packets 0..N-1 in order (more if the last ones were dropped), noting which it dropped. */
    static final class WriterThread extends Thread {
        final int index;
        private final DataSourceContext context;
        private final long seed;
        private final Verifier verifier;
        private final Errors errors;
        /** Written by this thread only; read after join (which orders it). */
        final BitSet dropped = new BitSet();
        long written;
        long packetsWritten;
        long droppedPackets;
        int writerId;
        /**
         * Weight of the packets this writer has written into the SMB: not the ones it dropped, which never
         * reach the buffer and which no delivery would ever account for until its next packet got through.
         */
        private long sent;

        WriterThread(int index, DataSourceContext context, long seed, Verifier verifier, Errors errors) {
            super("stress-writer-" + index);
            setDaemon(true);
            this.index = index;
            this.context = context;
            this.seed = seed;
            this.verifier = verifier;
            this.errors = errors;
        }

        @Override
        public void run() {
            Content content = new Content();
            TraceWriter writer = null;
            try {
                writer = context.newTraceWriter();
                writerId = writer.writerId();
                boolean lastDropped = false;
                // Past N only while the last packet was dropped: every drop is then followed by a packet that
                // must report it.
                for (int seq = 0; seq < PACKETS_PER_WRITER || lastDropped; seq++) {
                    if ((seq & 1023) == 0 && !errors.isEmpty()) {
                        return; // the run has failed already: end it soon, with the first errors shown
                    }
                    content.fill(seed, index, seq);
                    waitForConsumer();
                    long droppedBefore = writer.droppedPackets();
                    ProtoWriter p = writer.beginPacket();
                    content.write(p, index, seq);
                    writer.endPacket();
                    written++;
                    lastDropped = writer.droppedPackets() != droppedBefore;
                    if (lastDropped) {
                        dropped.set(seq);
                        // The SMB is full: let the commit thread and the service free some of it, so that under
                        // the DROP policy packets get through between the drops.
                        LockSupport.parkNanos(100_000);
                    } else {
                        sent += content.weight();
                    }
                }
                packetsWritten = writer.packetsWritten();
                droppedPackets = writer.droppedPackets();
                writer.close(); // flushes the last chunk
            } catch (Throwable t) {
                errors.add("writer " + index + " failed at packet " + written, t);
                if (writer != null) {
                    try {
                        writer.abortPacket();
                        writer.close();
                    } catch (Throwable ignored) {
                        // Already broken; the error above fails the test.
                    }
                }
            }
        }

        /** Liveness wait: at most {@link #WINDOW_BYTES} written into the SMB and not yet delivered. */
        private void waitForConsumer() {
            if (sent - verifier.checkedWeight.get(index) <= WINDOW_BYTES) {
                return;
            }
            long checked = verifier.checkedWeight.get(index);
            long lastProgress = System.nanoTime();
            while (sent - checked > WINDOW_BYTES) {
                LockSupport.parkNanos(200_000);
                long now = verifier.checkedWeight.get(index);
                if (now != checked) {
                    checked = now;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > NO_PROGRESS_LIMIT_NANOS) {
                    throw new IllegalStateException("the consumer checked nothing of writer " + index + " for "
                            + TimeUnit.NANOSECONDS.toSeconds(NO_PROGRESS_LIMIT_NANOS) + " s: " + (sent - checked)
                            + " bytes written but not delivered");
                }
            }
        }
    }

    /** Calls readBuffers again and again while the writers write, checking everything delivered. */
    static final class ConsumerThread extends Thread {
        private final ConsumerEndpoint consumer;
        private final Verifier verifier;
        private final Errors errors;
        private volatile boolean stop;
        /** Read by the test thread after join. */
        long reads;

        ConsumerThread(ConsumerEndpoint consumer, Verifier verifier, Errors errors) {
            super("stress-consumer");
            setDaemon(true);
            this.consumer = consumer;
            this.verifier = verifier;
            this.errors = errors;
        }

        @Override
        public void run() {
            try {
                long lastPackets = 0;
                long lastProgress = System.nanoTime();
                while (!stop) {
                    long got = verifier.read(consumer);
                    reads++;
                    if (got > 0) {
                        lastPackets += got;
                        lastProgress = System.nanoTime();
                    } else {
                        if (System.nanoTime() - lastProgress > NO_PROGRESS_LIMIT_NANOS) {
                            errors.add("no producer packet delivered for "
                                    + TimeUnit.NANOSECONDS.toSeconds(NO_PROGRESS_LIMIT_NANOS) + " s after " + lastPackets);
                            return;
                        }
                        // Nothing new: give the writers and the service the CPU for a moment.
                        LockSupport.parkNanos(1_000_000);
                    }
                }
            } catch (Throwable t) {
                errors.add("consumer failed", t);
            }
        }

        void finish() throws InterruptedException {
            stop = true;
            join(TimeUnit.MINUTES.toMillis(2));
        }
    }

    /**
     * Checks every packet the service delivers. Used by one thread at a time: the consumer thread while
     * the writers write, then the test thread (after joining it) for the final read.
     */
    static final class Verifier {
        private final long seed;
        private final Errors errors;
        private final Content content = new Content();
        private final Regenerator regen = new Regenerator();
        final Sequence[] sequences = new Sequence[WRITERS];
        /** Per writer, the weight of its packets delivered and checked so far: what the writers pace themselves by. */
        final AtomicLongArray checkedWeight = new AtomicLongArray(WRITERS);
        long producerPackets;
        TraceStats traceStats;

        static final class Sequence {
            final BitSet delivered = new BitSet();
            final BitSet flagged = new BitSet();
            long lastSeq = -1;
            long deliveredCount;
            int firstOnSequence;
            int sequenceId;
            /** A packet of this sequence carried the producer's trusted pid/uid. */
            boolean identified;
        }

        Verifier(long seed, Errors errors) {
            this.seed = seed;
            this.errors = errors;
            for (int i = 0; i < WRITERS; i++) {
                sequences[i] = new Sequence();
            }
        }

        /** One readBuffers: copies the packets out on the service thread, checks them here. Returns the producer packets. */
        long read(ConsumerEndpoint consumer) throws Exception {
            List<byte[]> batch = new ArrayList<>();
            long delivered = await(consumer.readBuffers(PacketSink.joined((bytes, offset, length) ->
                    batch.add(Arrays.copyOfRange(bytes, offset, offset + length)))));
            if (delivered != batch.size()) {
                errors.add("readBuffers reported " + delivered + " packets but delivered " + batch.size());
            }
            long before = producerPackets;
            for (byte[] packet : batch) {
                check(packet);
            }
            return producerPackets - before;
        }

        private void check(byte[] bytes) {
            TracePacket packet;
            try {
                packet = TracePacket.parseFrom(bytes);
            } catch (InvalidProtocolBufferException e) {
                errors.add("a delivered packet of " + bytes.length + " bytes does not parse: " + e.getMessage());
                return;
            }
            if (packet.getTrustedPacketSequenceId() == TracingService.SERVICE_SEQUENCE_ID) {
                if (packet.hasTraceStats()) {
                    traceStats = packet.getTraceStats();
                }
                return;
            }
            producerPackets++;
            int writer = packet.getTimestampClockId() - 1;
            long seq = packet.getTimestamp();
            String where = "packet seq " + seq + " of writer " + writer + " (" + bytes.length + " bytes)";
            if (writer < 0 || writer >= WRITERS || seq < 0 || seq >= 2L * PACKETS_PER_WRITER) {
                errors.add(where + ": no such writer or seq");
                return;
            }
            Sequence s = sequences[writer];
            if (s.sequenceId == 0) {
                s.sequenceId = packet.getTrustedPacketSequenceId();
            } else if (s.sequenceId != packet.getTrustedPacketSequenceId()) {
                errors.add(where + ": on sequence " + packet.getTrustedPacketSequenceId() + ", earlier ones on "
                        + s.sequenceId);
            }
            if (packet.hasTrustedPid() || packet.hasTrustedUid()) {
                if (packet.getTrustedPid() != PRODUCER_PID || packet.getTrustedUid() != PRODUCER_UID) {
                    errors.add(where + ": trusted pid/uid " + packet.getTrustedPid() + "/" + packet.getTrustedUid());
                }
                s.identified = true;
            } else if (!s.identified) {
                errors.add(where + ": no trusted pid/uid on it or before it on its sequence");
            }
            if (seq <= s.lastSeq) {
                errors.add(where + ": after seq " + s.lastSeq + " (duplicate or out of order)");
                return;
            }
            if (packet.getFirstPacketOnSequence()) {
                s.firstOnSequence++;
                if (s.lastSeq >= 0) {
                    errors.add(where + ": first_packet_on_sequence after seq " + s.lastSeq);
                }
            }
            // The writers pace themselves by this: the weight delivered, against the weight they put into
            // the SMB (a lost packet, which the final checks report, stays outstanding).
            content.fill(seed, writer, seq);
            checkedWeight.addAndGet(writer, content.weight());
            s.lastSeq = seq;
            int length = regen.encode(content, writer, seq);
            int start = WireFormat.RESERVED_SIZE_BYTES;
            // The producer's bytes come first, unchanged; the service appends its trusted fields after them.
            if (bytes.length <= length) {
                errors.add(where + ": shorter than the " + length + " bytes written plus the trusted fields");
                return;
            }
            int mismatch = Arrays.mismatch(bytes, 0, length, regen.array(), start, start + length);
            if (mismatch >= 0) {
                errors.add(where + ": differs from the " + length + " bytes written at byte " + mismatch);
                return;
            }
            String complaint = content.check(packet);
            if (complaint != null) {
                errors.add(where + ": parses to something else: " + complaint);
                return;
            }
            if (packet.getPreviousPacketDropped() != 0) {
                s.flagged.set((int) seq);
            }
            s.delivered.set((int) seq);
            s.deliveredCount++;
        }
    }
}
