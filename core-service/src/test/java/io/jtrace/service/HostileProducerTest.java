package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.buffer.BufferCounters;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service is the trusted party: a producer that writes garbage into its SMB, forges headers,
 * commits chunks in the wrong state or out of range, sends patches anywhere, or truncates its SMB file
 * must not harm the service or any other producer.
 */
class HostileProducerTest {
    private static final boolean STRESS = Boolean.getBoolean("jtrace.stress");
    private static final int FUZZ_CASES = STRESS ? 10_000_000 : 1_000_000;
    private static final int GOOD_PACKETS = 50_000;

    @TempDir
    Path smbDir;

    @RegisterExtension
    final Closer closer = new Closer();

    private TracingService service;
    /** Completed once the good producer has written all its packets. */
    private final CompletableFuture<Void> goodDone = new CompletableFuture<>();

    /** A service with a well-behaved producer connected, whose data source "good" writes GOOD_PACKETS packets. */
    @BeforeEach
    void startServiceWithAGoodProducer() {
        // 2 MiB SMBs: all of the good producer's packets (~800 KiB) fit even if the service, busy with
        // the fuzz, drained nothing for a while, so a loaded machine cannot make it drop.
        service = closer.add(new TracingService(new ServiceConfig(2 * 1024 * 1024, 4096, smbDir, 4, 1L << 30, 5000)));
        closer.add(goodProducer(goodDone));
    }

    @Test
    void fuzzedChunksCommitsAndPatchesNeverHarmTheServiceOrAWellBehavedProducer() throws Exception {
        long seed = Long.getLong("jtrace.fuzz.seed", System.nanoTime());
        SplittableRandom random = new SplittableRandom(seed);
        HostileProducer hostile = connectHostile();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64 * 1024))
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(1024))
                .addDataSources(dataSource("good", 0))
                .addDataSources(dataSource("hostile", 1))
                .build()));
        int hostileBuffer = await(hostile.started).getTargetBuffer();
        int goodBuffer = hostileBuffer - 1;

        List<TracePacket> delivered = new ArrayList<>();
        SharedMemoryAbi abi = new SharedMemoryAbi(hostile.smb);
        for (int i = 0; i < FUZZ_CASES; i++) {
            hostile.endpoint.commit(fuzzCase(random, hostile, abi, hostileBuffer, goodBuffer));
            if (i % 20_000 == 0) {
                // Reading exercises the buffer's parser on whatever garbage made it in, and waits for the
                // service thread to work through the commits posted so far.
                delivered.addAll(readTolerantly(consumer));
            }
        }
        await(goodDone);
        await(consumer.disableTracing());
        delivered.addAll(readTolerantly(consumer));

        List<Long> goodSeqs = new ArrayList<>();
        for (TracePacket p : delivered) {
            if (p.hasTrackEvent() && p.getTrackEvent().getName().equals("good")) {
                goodSeqs.add(p.getTimestamp());
            }
        }
        assertEquals(GOOD_PACKETS, goodSeqs.size(), "seed " + seed + ": every packet of the good producer arrives once");
        for (int i = 0; i < GOOD_PACKETS; i++) {
            assertEquals(i, goodSeqs.get(i), "seed " + seed + ": in order");
        }
        TraceStats stats = ServiceTesting.traceStats(delivered);
        TraceStats.BufferStats hostileStats = stats.getBufferStats(1);
        assertTrue(hostileStats.getAbiViolations() + stats.getInvalidPackets() + hostileStats.getPatchesFailed() > 0,
                "seed " + seed + ": violations were counted: " + stats);
        assertTrue(stats.getChunksDiscarded() > 0, "seed " + seed + ": refused commits are counted: " + stats);
        assertTrue(stats.getPatchesDiscarded() > 0, "seed " + seed + ": refused patches are counted: " + stats);
        assertTrue(await(consumer.flush(5000)), "the service still answers");
    }

    @Test
    void producerWhoseSmbIsTruncatedIsDisconnectedAndTheOthersCarryOn() throws Exception {
        HostileProducer hostile = connectHostile();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64 * 1024))
                .addDataSources(dataSource("good", 0))
                .addDataSources(dataSource("hostile", 0))
                .build()));
        int target = await(hostile.started).getTargetBuffer();
        SharedMemoryAbi abi = new SharedMemoryAbi(hostile.smb);
        int chunk = completeChunk(abi, 0, 1, 0, 1);
        hostile.file.truncate(0);
        CommitRequest request = new CommitRequest(1);
        request.add(0, chunk, target);
        hostile.endpoint.commit(request);

        await(goodDone);
        await(consumer.disableTracing());
        List<TracePacket> delivered = ServiceTesting.read(consumer);
        long goodPackets = delivered.stream()
                .filter(p -> p.hasTrackEvent() && p.getTrackEvent().getName().equals("good")).count();
        assertEquals(GOOD_PACKETS, goodPackets, "the other producer's packets all arrive");
        TraceStats stats = ServiceTesting.traceStats(delivered);
        assertEquals(1, stats.getProducersConnected(), "the truncated producer was disconnected");
        assertEquals(2, stats.getProducersSeen());
    }

    /**
     * A producer that says its chunks hold nothing (a payload end of 0) still pays ring room for each: the
     * ring overwrites its old chunks instead of the service keeping a record per chunk in its heap.
     */
    @Test
    void chunksThatClaimToHoldNothingStillTakeRingRoomSoTheServiceKeepsFewOfThem() throws Exception {
        HostileProducer hostile = connectHostile();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        int ringKb = 64;
        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64 * 1024))
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(ringKb))
                .addDataSources(dataSource("good", 0))
                .addDataSources(dataSource("hostile", 1))
                .build()));
        int target = await(hostile.started).getTargetBuffer();
        hostile.endpoint.registerTraceWriter(1, target);
        SharedMemoryAbi abi = new SharedMemoryAbi(hostile.smb);
        int pages = 256;
        int rounds = 40;
        int chunkId = 0;
        for (int round = 0; round < rounds; round++) {
            CommitRequest request = new CommitRequest(pages);
            for (int page = 0; page < pages; page++) {
                request.add(page, completeChunk(abi, page, 1, chunkId++, 1), target, 0, 0);
            }
            hostile.endpoint.commit(request);
            // Taken and freed before the next round writes these pages again.
            assertTrue(await(consumer.flush(10_000)));
        }

        int ring = await(service.status()).sessions().get(0).buffers().stream()
                .filter(b -> b.capacity() == ringKb * 1024).findFirst().orElseThrow().id();
        BufferCounters counters = await(service.bufferCounters(ring));
        assertEquals(pages * rounds, counters.chunksWritten(), "every chunk was taken");
        long kept = counters.chunksWritten() - counters.chunksOverwritten();
        assertTrue(kept <= ringKb * 1024 / ChunkMover.LEAST_UNTRUSTED_STORED_BYTES,
                kept + " chunks kept in a ring of " + ringKb + " KiB");
    }

    /** The good producer stalls rather than drop when its SMB is full: every one of its packets must arrive. */
    /**
     * Reads like trace_processor does: packet by packet, skipping any whose inner bytes do not parse.
     * The service checks a packet's top-level fields (so trusted fields cannot be forged) but not what a
     * producer put inside them: a hostile producer can garble only its own packets.
     */
    private static List<TracePacket> readTolerantly(ConsumerEndpoint consumer) throws Exception {
        List<TracePacket> packets = new ArrayList<>();
        await(consumer.readBuffers(PacketSink.joined((bytes, offset, length) -> {
            try {
                packets.add(TracePacket.parseFrom(ByteBuffer.wrap(bytes, offset, length)));
            } catch (InvalidProtocolBufferException e) {
                // A hostile producer's garbled packet.
            }
        })));
        return packets;
    }

    private static TraceConfig.DataSource dataSource(String name, int targetBuffer) {
        return TraceConfig.DataSource.newBuilder()
                .setConfig(DataSourceConfig.newBuilder().setName(name).setTargetBuffer(targetBuffer)
                        .setBufferExhaustedPolicy(DataSourceConfig.BufferExhaustedPolicy.BUFFER_EXHAUSTED_STALL_THEN_DROP))
                .build();
    }

    private HostileProducer connectHostile() {
        return HostileProducer.connect(service, "hostile", 666, 666, "hostile");
    }

    /** A producer writing GOOD_PACKETS packets (timestamp = seq, name "good") from its own thread. */
    private ProducerClient goodProducer(CompletableFuture<Void> done) {
        return ServiceTesting.producerClient(service, "good", 1000, 1000, new TestDataSource("good",
                (context, config) -> new DataSourceInstance() {
                    @Override
                    public void start() {
                        Thread t = new Thread(() -> {
                            TraceWriter writer = context.newTraceWriter();
                            for (int seq = 0; seq < GOOD_PACKETS; seq++) {
                                ProtoWriter p = writer.beginPacket();
                                p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, seq);
                                p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
                                p.string(TrackEvent.NAME_FIELD_NUMBER, "good");
                                p.endNested();
                                writer.endPacket();
                                if (seq % 1000 == 999) {
                                    writer.flush();
                                }
                            }
                            writer.flush();
                            done.complete(null);
                        }, "good-writer");
                        t.start();
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void stop() {}
                }));
    }

    /** A payload end a hostile producer might send for a payload of {@code size} bytes: none, inside, past it. */
    private static int payloadEnd(SplittableRandom r, int size) {
        switch (r.nextInt(5)) {
            case 0:
                return -1;
            case 1:
                return r.nextInt(size);
            case 2:
                return size - r.nextInt(1, 8);
            case 3:
                return size + r.nextInt(1, 1000);
            default:
                return r.nextInt(Integer.MAX_VALUE);
        }
    }

    /** One fuzz case: garbage or a mutated chunk written into the SMB, then a hostile commit. */
    private static CommitRequest fuzzCase(SplittableRandom r, HostileProducer hostile, SharedMemoryAbi abi,
                                          int hostileBuffer, int goodBuffer) {
        ByteBuffer smb = hostile.smb.buffer();
        CommitRequest request = new CommitRequest(2);
        int target = pickTarget(r, hostileBuffer, goodBuffer);
        int page = r.nextInt(abi.pageCount());
        switch (r.nextInt(7)) {
            case 0: { // raw garbage anywhere in a page, bitmap included
                int offset = abi.pageOffset(page) + r.nextInt(abi.pageSize() - 16);
                for (int i = 0; i < 16; i++) {
                    smb.put(offset + i, (byte) r.nextInt());
                }
                smb.putInt(abi.pageOffset(page), r.nextInt());
                request.add(page, r.nextInt(16), target);
                break;
            }
            case 1:
            case 2: { // a chunk written by the rules (real packets), then a few bytes mutated
                int writer = 1 + r.nextInt(8);
                if (r.nextInt(50) == 0) {
                    hostile.endpoint.registerTraceWriter(writer, target);
                }
                int chunk = completeChunk(abi, page, writer, r.nextInt(64), 1 + r.nextInt(5));
                if (chunk >= 0) {
                    // Not read back from the bitmap: the service may already have freed the chunk.
                    PageLayout layout = PageLayout.DIV4;
                    int base = abi.chunkOffset(page, layout, chunk);
                    int size = layout.chunkSize(abi.pageSize());
                    int mutations = 1 + r.nextInt(4);
                    for (int m = 0; m < mutations; m++) {
                        smb.put(base + r.nextInt(size), (byte) r.nextInt());
                    }
                    // With read-out hints it has no right to: a payload end anywhere, a sequence id.
                    request.add(page, chunk, target, payloadEnd(r, size - ChunkHeader.SIZE),
                            r.nextInt(3) == 0 ? r.nextInt(1, 100) : 0);
                }
                break;
            }
            case 3: // patches anywhere
                for (int i = 0; i < 3; i++) {
                    request.addPatch(new CommitRequest.Patch(r.nextInt(1, 20), r.nextInt(-2, 70),
                            r.nextInt(-8, 1100), r.nextInt(), r.nextBoolean()));
                }
                break;
            case 4: // out of range
                request.add(r.nextBoolean() ? -1 - r.nextInt(5) : abi.pageCount() + r.nextInt(5), r.nextInt(-3, 20), target);
                break;
            case 5: // a chunk in the wrong state
                request.add(page, r.nextInt(14), target);
                break;
            default: // forged writer → buffer mappings
                hostile.endpoint.registerTraceWriter(r.nextInt(1, 40), r.nextInt(-1, 5) + goodBuffer);
                break;
        }
        return request;
    }

    private static int pickTarget(SplittableRandom r, int hostileBuffer, int goodBuffer) {
        int dice = r.nextInt(1000);
        if (dice < 2) {
            return goodBuffer; // the same session's other buffer: allowed, and must not disturb it
        }
        if (dice < 20) {
            return r.nextInt(-5, 100); // buffers of no one / of nothing
        }
        return hostileBuffer;
    }

    /**
     * Lays out page {@code page} as DIV4 with chunk 0 COMPLETE (written by the rules), holding
     * {@code packets} small real packets. Returns the chunk index, or -1.
     */
    private static int completeChunk(SharedMemoryAbi abi, int page, int writer, int chunkId, int packets) {
        ByteBuffer smb = abi.smb().buffer();
        smb.putInt(abi.pageOffset(page), PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV4), 0,
                ChunkState.COMPLETE));
        int base = abi.chunkOffset(page, PageLayout.DIV4, 0);
        int pos = base + ChunkHeader.SIZE;
        for (int i = 0; i < packets; i++) {
            byte[] packet = TracePacket.newBuilder().setTimestamp(i)
                    .setTrackEvent(TrackEvent.newBuilder().setName("hostile")).build().toByteArray();
            smb.putInt(pos, WireFormat.redundantVarint(packet.length));
            smb.put(pos + 4, packet);
            pos += 4 + packet.length;
        }
        smb.putInt(base, chunkId);
        smb.putInt(base + 4, ChunkHeader.writerAndPackets(writer, ChunkHeader.packetsWord(packets, 0)));
        return 0;
    }
}
