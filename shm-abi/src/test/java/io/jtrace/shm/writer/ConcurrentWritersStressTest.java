package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import io.jtrace.shm.proto.WireFormat;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded concurrency stress test of the producer write path: 8 {@link TraceWriter}s on their own threads
 * write into one small SMB while a reader thread plays the service, reading and freeing every committed
 * chunk as soon as it arrives so chunks are recycled and pages re-partitioned all the time.
 *
 * <p>Every packet's content is a pure function of (seed, writer, sequence number), so the reader checks
 * each byte it gets without the writers keeping what they wrote. At the end, per writer, the packets read
 * back must be exactly the packets written minus the ones the writer counted as dropped: none duplicated,
 * none corrupted, in order, in consecutive chunks.
 *
 * <p>About 1,000,000 packets by default; {@code -Djtrace.stress=true} writes 10 times as many. The seed is
 * random per run and printed; {@code -Djtrace.stress.seed=N} replays one.
 */
class ConcurrentWritersStressTest {
    private static final int SMB_SIZE = 64 * 1024;
    private static final int PAGE_SIZE = 4096;
    private static final int WRITERS = 8;
    private static final boolean STRESS = "true".equals(System.getProperty("jtrace.stress"));
    private static final int PACKETS_PER_WRITER = (STRESS ? 10_000_000 : 1_000_000) / WRITERS;
    /** Liveness only: how long the whole run may take before we call it hung. */
    private static final long RUN_TIMEOUT_MINUTES = STRESS ? 60 : 10;
    /** Commit period: short, so released chunks reach the reader (and are freed) quickly. */
    private static final long COMMIT_PERIOD_MILLIS = 1;
    /**
     * Writers back off while more than this much of the SMB is taken: 8 writers outrun one verifying
     * reader on a small machine, and without a back-off nearly every packet would be dropped for a full
     * SMB. The back-off is bounded ({@link #MAX_BACKOFF_NANOS}), like the "stall" policy, so it cannot
     * deadlock on chunks the waiting writers hold themselves.
     */
    private static final int BACKOFF_BUSY_BYTES = SMB_SIZE / 2;
    private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final int MAX_ERRORS_SHOWN = 20;

    @TempDir
    Path dir;

    @Test
    void everyPacketOfEveryWriterIsReadBackOnceInOrderAndIntactOrCountedAsDropped() throws Exception {
        long seed = Long.getLong("jtrace.stress.seed", ThreadLocalRandom.current().nextLong());
        String run = "seed " + seed + " (replay with -Djtrace.stress.seed=" + seed + ")";
        long started = System.nanoTime();

        SharedMemoryAbi abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, SMB_SIZE, PAGE_SIZE));
        Errors errors = new Errors();
        Reader reader = new Reader(abi, seed, errors);
        ChunkCommitter committer = new ChunkCommitter(abi.pageCount(), reader, COMMIT_PERIOD_MILLIS, "stress-commit");
        ChunkArbiter arbiter = new ChunkArbiter(abi, committer);
        committer.start();
        reader.start();
        try {
            TraceWriter[] writers = new TraceWriter[WRITERS];
            for (int i = 0; i < WRITERS; i++) {
                writers[i] = new TraceWriter(arbiter, targetBufferOf(i));
                reader.expectWriter(writers[i].writerId(), i);
            }
            CountDownLatch go = new CountDownLatch(1);
            WriterThread[] threads = new WriterThread[WRITERS];
            for (int i = 0; i < WRITERS; i++) {
                threads[i] = new WriterThread(i, writers[i], abi, seed, go, errors);
                threads[i].start();
            }
            go.countDown();

            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(RUN_TIMEOUT_MINUTES);
            for (WriterThread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                assertFalse(t.isAlive(), "writer " + t.index + " still running after " + RUN_TIMEOUT_MINUTES
                        + " min (hung?); " + run);
            }
            // Every writer flushed its last chunk before its thread ended; now have the commit thread commit
            // everything and wait until the reader has read up to the flush ack.
            CompletableFuture<Void> flushed = reader.expectFlush(1);
            committer.requestFlush(1);
            try {
                flushed.get(2, TimeUnit.MINUTES); // liveness only
            } catch (TimeoutException e) {
                fail("flush was never acknowledged and drained by the reader; " + run + "\n" + errors);
            }
            reader.stopAndJoin();
            assertFalse(reader.isAlive(), "reader did not stop");

            assertTrue(errors.isEmpty(), errors + "\n" + run);
            long totalWritten = 0;
            long totalDropped = 0;
            long totalDelivered = 0;
            StringBuilder summary = new StringBuilder();
            for (int i = 0; i < WRITERS; i++) {
                WriterThread t = threads[i];
                TraceWriter w = writers[i];
                Reader.Sequence s = reader.sequenceOf(i);
                String who = "writer " + i + " (id " + w.writerId() + "), " + run;
                assertEquals(PACKETS_PER_WRITER, t.attempted, "packets attempted by " + who);
                assertEquals(PACKETS_PER_WRITER, w.packetsWritten() + w.droppedPackets(),
                        "written + dropped by " + who);
                assertEquals(w.droppedPackets(), t.dropped.cardinality(), "drops seen packet by packet, " + who);
                assertFalse(s.delivered.intersects(t.dropped), "a packet counted as dropped was delivered, " + who);
                BitSet expected = new BitSet(PACKETS_PER_WRITER);
                expected.set(0, PACKETS_PER_WRITER);
                expected.andNot(t.dropped);
                if (!expected.equals(s.delivered)) {
                    BitSet missing = (BitSet) expected.clone();
                    missing.andNot(s.delivered);
                    fail(missing.cardinality() + " packets of " + who + " were neither delivered nor counted as"
                            + " dropped, first seq " + missing.nextSetBit(0));
                }
                assertEquals(expected.cardinality(), s.deliveredCount, "no duplicates, " + who);
                assertEquals(s.chunks, s.nextChunkId, "chunk ids 0.." + (s.chunks - 1) + ", " + who);
                totalWritten += t.attempted;
                totalDropped += w.droppedPackets();
                totalDelivered += s.deliveredCount;
                summary.append(String.format(" w%d: %d chunks, %d dropped;", i, s.chunks, w.droppedPackets()));
            }
            assertEquals(totalWritten, totalDelivered + totalDropped, "delivered + dropped == written; " + run);
            assertEquals((long) WRITERS * PACKETS_PER_WRITER, totalWritten);
            System.out.printf("ConcurrentWritersStressTest: %s; %d packets, %d delivered, %d dropped (%d too big"
                            + " for any chunk), %d chunks read, %d protobuf-parsed, %.1f s;%s%n",
                    run, totalWritten, totalDelivered, totalDropped, reader.tooBigDrops(threads), reader.chunksRead,
                    reader.parsed, (System.nanoTime() - started) / 1e9, summary);
        } finally {
            reader.stopAndJoin();
            committer.close();
        }
    }

    private static int targetBufferOf(int writerIndex) {
        return 100 + writerIndex;
    }

    /** Thread-safe collection of failures seen on the writer and reader threads. */
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
     * (90% 1–64 B, 9% up to 1 KiB, 1% up to 64 KiB) of random bytes, cut into pieces of 1..256 bytes.
     *
     * <p>Written as a TracePacket: {timestamp(8) = seq, track_event(11) = {type(9) = INSTANT,
     * debug_annotations(4) = {name_iid(1) = piece index, proto_value(14) = piece}..., track_uuid(11) =
     * tag}, timestamp_clock_id(58) = writer index + 1}. Nested messages are open whenever a piece crosses
     * into a new chunk, so a move shifts up to three open size fields.
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
            long h = mix64(seed ^ mix64((long) writer << 40 ^ seq));
            SplittableRandom r = new SplittableRandom(h);
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

        void write(ProtoWriter p, int writer, long seq) {
            p.varint(8, seq);
            p.beginNested(11);
            p.varint(9, TrackEvent.Type.TYPE_INSTANT.getNumber());
            int from = 0;
            for (int i = 0; i < pieces; i++) {
                p.beginNested(4);
                p.varint(1, i);
                p.bytes(14, payload, from, pieceEnds[i] - from);
                p.endNested();
                from = pieceEnds[i];
            }
            p.varint(11, tag);
            p.endNested();
            p.varint(58, writer + 1);
        }

        /** Checks what protobuf-java parsed against this content; returns a complaint or null. */
        String check(TracePacket packet, int writer, long seq) {
            if (packet.getTimestamp() != seq || packet.getTimestampClockId() != writer + 1 || !packet.hasTrackEvent()) {
                return "envelope differs: " + packet.getTimestamp() + "/" + packet.getTimestampClockId();
            }
            TrackEvent e = packet.getTrackEvent();
            if (e.getType() != TrackEvent.Type.TYPE_INSTANT || e.getTrackUuid() != tag
                    || e.getDebugAnnotationsCount() != pieces) {
                return "track event differs: " + e.getType() + ", " + e.getDebugAnnotationsCount() + " annotations";
            }
            int from = 0;
            for (int i = 0; i < pieces; i++) {
                DebugAnnotation a = e.getDebugAnnotations(i);
                byte[] piece = a.getProtoValue().toByteArray();
                if (a.getNameIid() != i || !Arrays.equals(piece, 0, piece.length, payload, from, pieceEnds[i])) {
                    return "annotation " + i + " differs";
                }
                from = pieceEnds[i];
            }
            return null;
        }

        /** Whether the framed packet can fit no chunk of this SMB, so the writer must drop it. */
        boolean fitsNoChunk(int writer, long seq, Regenerator regen) {
            int size = regen.frame(this, writer, seq);
            return ChunkHeader.SIZE + size > PageLayout.DIV1.chunkSize(PAGE_SIZE);
        }

        private static long mix64(long z) {
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            return z ^ (z >>> 33);
        }
    }

    /** Writes a packet's expected frame ([4-byte size][packet]) into a growable heap buffer. */
    static final class Regenerator implements SpaceProvider {
        private ByteBuffer buf = ByteBuffer.allocate(128 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        private final ProtoWriter proto = new ProtoWriter(this);

        /** Returns the frame's length; the bytes are {@code array()[0..length)}. */
        int frame(Content c, int writer, long seq) {
            proto.reset(buf, 0, buf.capacity());
            proto.beginFrame();
            c.write(proto, writer, seq);
            proto.endNested();
            return proto.position();
        }

        byte[] array() {
            return buf.array();
        }

        @Override
        public void makeRoom(ProtoWriter writer, int needed) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, writer.position() + needed))
                    .order(ByteOrder.LITTLE_ENDIAN);
            bigger.put(0, buf, 0, writer.position());
            buf = bigger;
            writer.moveTo(bigger, 0, 0, bigger.capacity());
        }
    }

    /** One writer: packets 0..N-1 in order, noting which ones its TraceWriter dropped. */
    static final class WriterThread extends Thread {
        final int index;
        private final TraceWriter writer;
        private final SharedMemoryAbi abi;
        private final long seed;
        private final CountDownLatch go;
        private final Errors errors;
        /** Written by this thread only, read after join (which orders it). */
        final BitSet dropped = new BitSet();
        int attempted;

        WriterThread(int index, TraceWriter writer, SharedMemoryAbi abi, long seed, CountDownLatch go, Errors errors) {
            super("stress-writer-" + index);
            setDaemon(true);
            this.index = index;
            this.writer = writer;
            this.abi = abi;
            this.seed = seed;
            this.go = go;
            this.errors = errors;
        }

        @Override
        public void run() {
            Content content = new Content();
            try {
                go.await();
                for (int seq = 0; seq < PACKETS_PER_WRITER; seq++) {
                    backOffWhileSmbIsBusy();
                    content.fill(seed, index, seq);
                    long droppedBefore = writer.droppedPackets();
                    ProtoWriter p = writer.beginPacket();
                    content.write(p, index, seq);
                    writer.endPacket();
                    attempted++;
                    if (writer.droppedPackets() != droppedBefore) {
                        dropped.set(seq);
                    }
                }
                writer.close(); // flushes the last chunk
            } catch (Throwable t) {
                errors.add("writer " + index + " failed at packet " + attempted, t);
                try {
                    writer.abortPacket();
                    writer.flush();
                } catch (Throwable ignored) {
                    // Already broken; the error above fails the test.
                }
            }
        }

        private void backOffWhileSmbIsBusy() {
            if (busyBytes(abi) <= BACKOFF_BUSY_BYTES) {
                return;
            }
            long until = System.nanoTime() + MAX_BACKOFF_NANOS;
            do {
                LockSupport.parkNanos(50_000);
            } while (busyBytes(abi) > BACKOFF_BUSY_BYTES && System.nanoTime() < until);
        }

        /** Bytes of chunks not FREE, from the page bitmaps (a racy snapshot, good enough for pacing). */
        private static int busyBytes(SharedMemoryAbi abi) {
            int busy = 0;
            for (int page = 0; page < abi.pageCount(); page++) {
                int bitmap = abi.pageBitmap(page);
                PageLayout layout = PageHeader.layout(bitmap);
                if (bitmap == 0 || layout == null || layout == PageLayout.NOT_PARTITIONED) {
                    continue;
                }
                int chunkSize = layout.chunkSize(abi.pageSize());
                for (int i = 0; i < layout.chunksPerPage(); i++) {
                    if (PageHeader.chunkState(bitmap, i) != ChunkState.FREE) {
                        busy += chunkSize;
                    }
                }
            }
            return busy;
        }
    }

    /**
     * The service: the commit sink hands each committed chunk (and each flush ack) to this thread, in
     * commit order. For each chunk it takes it for reading, copies it out, frees it at once, then parses
     * and checks the copy.
     */
    static final class Reader extends Thread implements CommitSink {
        private static final int STOP = -2;
        private static final int FLUSH = -1;

        /** {page, chunk index, target buffer} of a committed chunk, or {FLUSH, id hi, id lo} or {STOP}. */
        private final BlockingQueue<long[]> inbox = new LinkedBlockingQueue<>();
        private final SharedMemoryAbi abi;
        private final ByteBuffer smb;
        private final long seed;
        private final Errors errors;
        private final byte[] copy;
        private final Content content = new Content();
        private final Regenerator regen = new Regenerator();
        /** writer id → writer index + 1 (0: unknown id). Filled before the writers start. */
        private final int[] indexOfWriterId = new int[ChunkHeader.MAX_WRITER_ID + 1];
        private final Sequence[] sequences = new Sequence[WRITERS];
        /** Flush id → completed by the reader thread once it has read everything committed before that flush. */
        private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> flushes = new ConcurrentSkipListMap<>();
        private final AtomicInteger stopped = new AtomicInteger();
        long chunksRead;
        long parsed;

        /** What the reader got from one writer. Touched by the reader thread only until it is joined. */
        static final class Sequence {
            final BitSet delivered = new BitSet();
            long lastSeq = -1;
            long deliveredCount;
            long nextChunkId;
            long chunks;
        }

        Reader(SharedMemoryAbi abi, long seed, Errors errors) {
            super("stress-service-reader");
            setDaemon(true);
            this.abi = abi;
            this.smb = abi.smb().buffer();
            this.seed = seed;
            this.errors = errors;
            this.copy = new byte[abi.pageSize()];
            for (int i = 0; i < WRITERS; i++) {
                sequences[i] = new Sequence();
            }
        }

        void expectWriter(int writerId, int index) {
            indexOfWriterId[writerId] = index + 1;
        }

        Sequence sequenceOf(int index) {
            return sequences[index];
        }

        /** A future completed by the reader thread once it has read everything committed before flush {@code id}. */
        CompletableFuture<Void> expectFlush(long id) {
            return flushes.computeIfAbsent(id, k -> new CompletableFuture<>());
        }

        @Override
        public void commit(CommitRequest request) {
            for (int i = 0; i < request.size(); i++) {
                inbox.add(new long[] {request.page(i), request.chunk(i), request.targetBuffer(i)});
            }
        }

        @Override
        public void flushComplete(long requestId) {
            inbox.add(new long[] {FLUSH, requestId});
        }

        void stopAndJoin() throws InterruptedException {
            if (stopped.getAndIncrement() == 0) {
                inbox.add(new long[] {STOP});
            }
            join(TimeUnit.MINUTES.toMillis(1));
        }

        @Override
        public void run() {
            try {
                while (true) {
                    long[] item = inbox.take();
                    if (item[0] == STOP) {
                        return;
                    }
                    if (item[0] == FLUSH) {
                        answerFlush(item[1]);
                        continue;
                    }
                    try {
                        readChunk((int) item[0], (int) item[1], (int) item[2]);
                    } catch (Throwable t) {
                        errors.add("reader failed on chunk " + item[1] + " of page " + item[0], t);
                    }
                }
            } catch (InterruptedException e) {
                errors.add("reader interrupted");
            }
        }

        /** Flush acks come in commit order, so every chunk committed before this one has been read by now. */
        private void answerFlush(long id) {
            flushes.headMap(id, true).values().forEach(f -> f.complete(null));
        }

        private void readChunk(int page, int index, int targetBuffer) {
            if (!abi.tryAcquireChunkForReading(page, index)) {
                errors.add("committed chunk " + index + " of page " + page + " is " + abi.chunkState(page, index)
                        + ", not COMPLETE");
                return;
            }
            // The layout is read only now that the chunk is ours: until then the page may be re-partitioned.
            PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
            if (layout == null || index >= layout.chunksPerPage()) {
                errors.add("page " + page + " has no chunk " + index + " after acquiring it (layout " + layout + ")");
                return;
            }
            int size = layout.chunkSize(abi.pageSize());
            smb.get(abi.chunkOffset(page, layout, index), copy, 0, size);
            // Free it before parsing: chunks go back to the writers as fast as the service can take them.
            if (!abi.releaseChunkAsFree(page, index)) {
                errors.add("chunk " + index + " of page " + page + " could not be freed");
            }
            chunksRead++;
            parseChunk(copy, size, page, index, targetBuffer);
        }

        private void parseChunk(byte[] c, int size, int page, int index, int targetBuffer) {
            ByteBuffer b = ByteBuffer.wrap(c, 0, size).order(ByteOrder.LITTLE_ENDIAN);
            long chunkId = Integer.toUnsignedLong(b.getInt(ChunkHeader.CHUNK_ID_OFFSET));
            int writerAndPackets = b.getInt(ChunkHeader.WRITER_AND_PACKETS_OFFSET);
            int writerId = ChunkHeader.writerId(writerAndPackets);
            int packetsWord = ChunkHeader.packetsWordOf(writerAndPackets);
            int count = ChunkHeader.packetCount(packetsWord);
            int flags = ChunkHeader.flags(packetsWord);
            String where = "chunk " + chunkId + " of writer id " + writerId + " (page " + page + " chunk " + index
                    + ")";
            int writer = indexOfWriterId[writerId] - 1;
            if (writer < 0) {
                errors.add(where + ": unknown writer id");
                return;
            }
            Sequence s = sequences[writer];
            if (chunkId != s.nextChunkId) {
                errors.add(where + ": expected chunk id " + s.nextChunkId);
            }
            s.nextChunkId = chunkId + 1;
            s.chunks++;
            if (targetBuffer != targetBufferOf(writer)) {
                errors.add(where + ": committed for buffer " + targetBuffer + ", not " + targetBufferOf(writer));
            }
            if (flags != 0) {
                // This writer never fragments packets; the checks below assume whole packets.
                errors.add(where + ": unexpected flags " + flags);
                return;
            }
            int pos = ChunkHeader.SIZE;
            for (int i = 0; i < count; i++) {
                if (pos + WireFormat.RESERVED_SIZE_BYTES > size) {
                    errors.add(where + ": frame " + i + " of " + count + " starts past the chunk");
                    return;
                }
                int len = WireFormat.decodeRedundantVarint(b.getInt(pos));
                pos += WireFormat.RESERVED_SIZE_BYTES;
                if (len < 0 || len == WireFormat.DROPPED_PACKET_SIZE || pos + len > size) {
                    errors.add(where + ": frame " + i + " of " + count + " has a bad size " + len);
                    return;
                }
                checkPacket(c, pos, len, writer, s, where + " frame " + i);
                pos += len;
            }
        }

        private void checkPacket(byte[] c, int at, int len, int writer, Sequence s, String where) {
            // timestamp(8) = seq comes first: tag 0x40, then a varint.
            if (len < 2 || c[at] != 0x40) {
                errors.add(where + ": packet does not start with the timestamp field");
                return;
            }
            long seq = 0;
            int p = at + 1;
            for (int shift = 0; ; shift += 7) {
                if (p >= at + len || shift > 63) {
                    errors.add(where + ": bad timestamp varint");
                    return;
                }
                byte x = c[p++];
                seq |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    break;
                }
            }
            if (seq < 0 || seq >= PACKETS_PER_WRITER) {
                errors.add(where + ": seq " + seq + " out of range");
                return;
            }
            if (seq <= s.lastSeq) {
                errors.add(where + ": seq " + seq + " after " + s.lastSeq + " (duplicate or out of order)");
                return;
            }
            s.lastSeq = seq;
            content.fill(seed, writer, seq);
            int frame = regen.frame(content, writer, seq);
            byte[] expected = regen.array();
            int mismatch = Arrays.mismatch(c, at, at + len, expected, WireFormat.RESERVED_SIZE_BYTES, frame);
            if (mismatch >= 0) {
                errors.add(where + ": packet seq " + seq + " of writer " + writer + " (" + len + " bytes, expected "
                        + (frame - WireFormat.RESERVED_SIZE_BYTES) + ") differs from what was written at byte "
                        + mismatch);
                return;
            }
            // The bytes are identical; also have protobuf-java parse a sample, to be sure they are a TracePacket.
            if ((seq & 15) == 0 || content.length > 64) {
                try {
                    String complaint = content.check(TracePacket.parseFrom(
                            ByteBuffer.wrap(c, at, len)), writer, seq);
                    if (complaint != null) {
                        errors.add(where + ": packet seq " + seq + " parses to something else: " + complaint);
                        return;
                    }
                } catch (InvalidProtocolBufferException e) {
                    errors.add(where + ": packet seq " + seq + " does not parse: " + e.getMessage());
                    return;
                }
                parsed++;
            }
            s.delivered.set((int) seq);
            s.deliveredCount++;
        }

        /** How many of the writers' drops were packets too big for any chunk (the rest: SMB full). */
        long tooBigDrops(WriterThread[] threads) {
            long n = 0;
            for (WriterThread t : threads) {
                for (int seq = t.dropped.nextSetBit(0); seq >= 0; seq = t.dropped.nextSetBit(seq + 1)) {
                    content.fill(seed, t.index, seq);
                    if (content.fitsNoChunk(t.index, seq, regen)) {
                        n++;
                    }
                }
            }
            return n;
        }
    }
}
