package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A data source context over a small SMB whose commits the test moves into a real TraceBuffer when it
 * chooses ({@link #drain}): until then the SMB fills and writers drop packets, deterministically.
 */
public final class RecordingContext implements DataSourceContext, AutoCloseable {
    private final SharedMemoryAbi abi;
    private final ChunkCommitter committer;
    private final ChunkArbiter arbiter;
    private final List<TraceWriter> writers = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<CommitRequest> commits = new ConcurrentLinkedQueue<>();
    private final TraceBuffer buffer;
    private volatile CountDownLatch flushed;
    private final List<Runnable> periodicTasks = new CopyOnWriteArrayList<>();
    /** Sequence ids as the service hands them out: a new one for a writer id after its retirement. */
    private final Map<Integer, Integer> sequenceIds = new HashMap<>();
    private int nextSequenceId = 10;
    private final SequenceIdentity identity = new SequenceIdentity() {
        @Override
        public int sequenceId(int producerId, int writerId) {
            return sequenceIds.computeIfAbsent(writerId, w -> nextSequenceId++);
        }

        @Override
        public int pid(int producerId) {
            return 1;
        }

        @Override
        public int uid(int producerId) {
            return 1;
        }

        /** The agent's writers, validated here as a producer of another process would be. */
        @Override
        public boolean trusted(int producerId) {
            return false;
        }
    };

    public RecordingContext(Path dir, int smbSize) throws Exception {
        this(dir, smbSize, new TraceBuffer(16L * 1024 * 1024, TraceBuffer.Policy.DISCARD));
    }

    /** Drains into {@code buffer}, such as a small ring that overwrites what is not read. */
    public RecordingContext(Path dir, int smbSize, TraceBuffer buffer) throws Exception {
        this.buffer = buffer;
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, smbSize, 4096);
        abi = new SharedMemoryAbi(smb);
        committer = new ChunkCommitter(abi.pageCount(), new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                commits.add(request);
            }

            @Override
            public void flushComplete(long requestId) {
                flushed.countDown();
            }
        }, 1, "test-commit");
        committer.start();
        arbiter = new ChunkArbiter(abi, committer);
    }

    @Override
    public TraceWriter newTraceWriter() {
        TraceWriter writer = new TraceWriter(arbiter, 1);
        writers.add(writer);
        return writer;
    }

    @Override
    public int targetBuffer() {
        return 1;
    }

    @Override
    public long instanceId() {
        return 1;
    }

    @Override
    public int smbChunks() {
        return arbiter.defaultChunkCount();
    }

    /** Periodic tasks run only when the test says so ({@link #runPeriodicTasks}): deterministic. */
    @Override
    public Cancellable every(long periodMillis, Runnable task) {
        periodicTasks.add(task);
        return () -> periodicTasks.remove(task);
    }

    /** Drop markers the buffer has read (TraceStats' trace_writer_packet_loss). */
    long writerPacketLoss() {
        return buffer.counters().writerPacketLoss();
    }

    /** Takes every free writer id, so the next writer cannot be created. */
    void exhaustWriterIds() {
        while (arbiter.allocateWriterId() > 0) {
            // taken
        }
    }

    void runPeriodicTasks() {
        for (Runnable task : periodicTasks) {
            task.run();
        }
    }

    /** Waits until everything released so far is committed, then moves it into the buffer (freeing the SMB). */
    public void drain() throws Exception {
        flushed = new CountDownLatch(1);
        committer.requestFlush(System.nanoTime());
        if (!flushed.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the commit thread did not answer the flush");
        }
        CommitRequest request;
        while ((request = commits.poll()) != null) {
            for (int i = 0; i < request.size(); i++) {
                int page = request.page(i);
                int chunk = request.chunk(i);
                abi.tryAcquireChunkForReading(page, chunk);
                buffer.copyChunk(1, abi, page, PageHeader.layout(abi.pageBitmap(page)), chunk, true,
                        request.payloadEnd(i), request.sequenceId(i));
                abi.releaseChunkAsFree(page, chunk);
            }
            committer.notifyChunksFreed();
            for (CommitRequest.Patch p : request.patches()) {
                buffer.applyPatch(1, p.writerId(), p.chunkId(), p.offset(), p.value(), p.hasMorePatches());
            }
            for (int i = 0; i < request.retiredWriterCount(); i++) {
                buffer.retireWriter(identity, 1, request.retiredWriter(i));
                sequenceIds.remove(request.retiredWriter(i));
            }
        }
    }

    /** Chunks some writer still holds. */
    int chunksBeingWritten() {
        int count = 0;
        for (int page = 0; page < abi.pageCount(); page++) {
            PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
            for (int chunk = 0; layout != null && chunk < layout.chunksPerPage(); chunk++) {
                if (abi.chunkState(page, chunk) == ChunkState.BEING_WRITTEN) {
                    count++;
                }
            }
        }
        return count;
    }

    /** The value of the lost-events counter a track_event session of {@code process} writes at stop (exactly one sample). */
    public static long lostEventsCounter(List<TracePacket> packets, ProcessTrack process) {
        long track = process.namedUuid("counter:" + TrackEventDataSource.LOST_EVENTS_TRACK);
        List<Long> values = new ArrayList<>();
        for (TracePacket p : packets) {
            if (p.hasTrackEvent() && p.getTrackEvent().getTrackUuid() == track) {
                values.add(p.getTrackEvent().getCounterValue());
            }
        }
        assertEquals(1, values.size(), "one lost-events sample at stop");
        return values.get(0);
    }

    /** Packets the writers made here dropped because the SMB was full (read on the thread that wrote them). */
    public long droppedPackets() {
        return writers.stream().mapToLong(TraceWriter::droppedPackets).sum();
    }

    /**
     * Everything in the buffer, in per-sequence order, as the service would deliver it at the end:
     * chunks writers still hold are copied up to their last counted packet first, as the service's
     * scrape does.
     */
    public List<TracePacket> read() throws Exception {
        drain();
        for (int page = 0; page < abi.pageCount(); page++) {
            PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
            if (layout == null || layout == PageLayout.NOT_PARTITIONED) {
                continue;
            }
            for (int chunk = 0; chunk < layout.chunksPerPage(); chunk++) {
                if (abi.chunkState(page, chunk) == ChunkState.BEING_WRITTEN) {
                    buffer.copyChunk(1, abi, page, layout, chunk, false, -1, 0);
                }
            }
        }
        List<TracePacket> packets = new ArrayList<>();
        List<Exception> errors = new ArrayList<>();
        buffer.readAll(identity, PacketSink.joined((bytes, offset, length) -> {
            try {
                packets.add(TracePacket.parseFrom(ByteBuffer.wrap(bytes, offset, length)));
            } catch (Exception e) {
                errors.add(e);
            }
        }), true);
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
        return packets;
    }

    @Override
    public void close() {
        committer.close();
    }
}
