package io.jtrace.service;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.SystemInfo;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.Utsname;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.CommitRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tracing service (DESIGN §4, §5): producers register data sources and commit chunks; consumers
 * start sessions, flush, stop and read. One task thread owns every piece of state below; the public
 * and endpoint methods only post tasks to it, so no state needs a lock.
 */
public final class TracingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);
    /** trusted_packet_sequence_id of the service's own packets. */
    public static final int SERVICE_SEQUENCE_ID = 1;

    private final ServiceConfig config;
    private final ScheduledExecutorService taskRunner;
    private final int servicePid = ProcessIdentity.pid();
    private final int serviceUid = ProcessIdentity.uid();
    /** The only counter touched off the task thread: ids are handed out at connect time. */
    private final AtomicInteger producerIds = new AtomicInteger();

    // ---- state owned by the task thread ----
    private final Map<Integer, ProducerState> producers = new LinkedHashMap<>();
    private final Map<Long, TracingSession> sessions = new LinkedHashMap<>();
    private final Map<Integer, TraceBuffer> buffers = new HashMap<>();
    private final Map<Integer, TracingSession> bufferOwners = new HashMap<>();
    private final Map<Long, Integer> sequenceIds = new HashMap<>();
    /** pid and uid of every producer ever connected: its packets keep them after it disconnects. */
    private final Map<Integer, int[]> producerIdentities = new HashMap<>();
    private long nextSessionId = 1;
    private int nextBufferId = 1;
    private long nextInstanceId = 1;
    private long nextFlushId = 1;
    private int nextSequenceId = SERVICE_SEQUENCE_ID + 1;
    private long totalBufferBytes;

    public TracingService(ServiceConfig config) {
        this.config = config;
        this.taskRunner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jtrace-service");
            t.setDaemon(true);
            return t;
        });
    }

    /** Connects a producer; identity (uid, pid) comes from the transport, never from the producer. */
    public ProducerEndpoint connectProducer(Producer producer, String name, int uid, int pid) {
        ProducerState state = new ProducerState(producerIds.incrementAndGet(), name, uid, pid, producer);
        post(() -> {
            producers.put(state.id, state);
            producerIdentities.put(state.id, new int[] {state.pid, state.uid});
            producer.onConnect();
        });
        return new ProducerEndpointImpl(state);
    }

    public ConsumerEndpoint connectConsumer(Consumer consumer) {
        return new ConsumerEndpointImpl(consumer);
    }

    @Override
    public void close() {
        CompletableFuture<Void> done = call(() -> {
            for (TracingSession session : new ArrayList<>(sessions.values())) {
                if (session.state == TracingSession.State.STARTED) {
                    stopDataSources(session);
                    finishDisable(session);
                }
                freeSession(session);
            }
            for (ProducerState producer : new ArrayList<>(producers.values())) {
                dropProducer(producer, null);
            }
            return null;
        });
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("jtrace service did not close cleanly", e);
        }
        taskRunner.shutdown();
    }

    // ------------------------------------------------------------------ task plumbing

    private void post(Runnable task) {
        try {
            taskRunner.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // A bug or a hostile input must not kill the only thread that owns the state.
                    LOG.error("jtrace service task failed", e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("jtrace service closed; task dropped");
        }
    }

    private <T> CompletableFuture<T> call(Supplier<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            taskRunner.execute(() -> {
                try {
                    result.complete(task.get());
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("jtrace service is closed"));
        }
        return result;
    }

    // ------------------------------------------------------------------ producers

    private void registerDataSource(ProducerState producer, String name) {
        if (!producer.connected || !producer.dataSources.add(name)) {
            return;
        }
        // A producer that shows up after a session started still joins it.
        for (TracingSession session : sessions.values()) {
            if (session.state != TracingSession.State.STARTED) {
                continue;
            }
            for (TraceConfig.DataSource ds : session.config.getDataSourcesList()) {
                if (ds.getConfig().getName().equals(name) && matchesFilter(ds, producer)) {
                    startInstance(session, producer, ds);
                }
            }
        }
    }

    private void commit(ProducerState producer, CommitRequest request) {
        try {
            moveCommitted(producer, request);
        } finally {
            request.release();
        }
    }

    private void moveCommitted(ProducerState producer, CommitRequest request) {
        if (!producer.connected || producer.abi == null) {
            return;
        }
        try {
            for (int i = 0; i < request.size(); i++) {
                moveChunk(producer, request.page(i), request.chunk(i), request.targetBuffer(i));
            }
            for (CommitRequest.Patch patch : request.patches()) {
                applyPatch(producer, patch);
            }
        } catch (InternalError e) {
            // The JVM reports access to a mapping whose file was truncated as InternalError (SIGBUS).
            dropProducer(producer, "its shared memory buffer became inaccessible (" + e.getMessage() + ")");
        }
    }

    /** Moves one committed chunk from the producer's SMB into its target buffer; hostile input tolerated. */
    private void moveChunk(ProducerState producer, int page, int chunk, int targetBuffer) {
        SharedMemoryAbi abi = producer.abi;
        if (page < 0 || page >= abi.pageCount() || !abi.tryAcquireChunkForReading(page, chunk)) {
            producer.abiViolations++;
            countViolation(targetBuffer);
            return;
        }
        // The successful CAS to BEING_READ fixed the page layout (a page with a busy chunk is never
        // repartitioned) and, being a volatile access, made the producer's writes visible.
        PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
        int offset = abi.chunkOffset(page, layout, chunk);
        int chunkId = abi.readChunkId(offset);
        int writerAndPackets = abi.readWriterAndPackets(offset);
        TraceBuffer buffer = bufferFor(producer, targetBuffer);
        byte[] payload = buffer == null ? null : copyPayload(abi, offset, layout);
        abi.releaseChunkAsFree(page, chunk);
        if (buffer != null) {
            buffer.copyChunk(producer.id, ChunkHeader.writerId(writerAndPackets), chunkId,
                    ChunkHeader.packetsWordOf(writerAndPackets), payload, true);
        }
    }

    /** Patches go to the buffer the writer writes into; a patch for anything else is refused. */
    private void applyPatch(ProducerState producer, CommitRequest.Patch patch) {
        Integer target = producer.writerTargets.get(patch.writerId());
        TraceBuffer buffer = target == null ? null : buffers.get(target);
        TracingSession owner = target == null ? null : bufferOwners.get(target);
        if (buffer == null || owner == null || owner.state == TracingSession.State.DISABLED) {
            producer.abiViolations++;
            return;
        }
        buffer.applyPatch(producer.id, patch.writerId(), patch.chunkId(), patch.offset(), patch.value(),
                patch.hasMorePatches());
    }

    /** The chunk's bytes after its header: the one copy the service makes, before parsing anything. */
    private static byte[] copyPayload(SharedMemoryAbi abi, int chunkOffset, PageLayout layout) {
        byte[] payload = new byte[layout.chunkSize(abi.pageSize()) - ChunkHeader.SIZE];
        abi.smb().buffer().get(chunkOffset + ChunkHeader.SIZE, payload);
        return payload;
    }

    /**
     * The buffer a producer's chunk goes to, or null when it is not one this producer writes to now
     * (stale writer, finished session, or forged id): such a chunk is freed without being kept.
     */
    private TraceBuffer bufferFor(ProducerState producer, int targetBuffer) {
        TraceBuffer buffer = buffers.get(targetBuffer);
        TracingSession owner = bufferOwners.get(targetBuffer);
        if (buffer == null || owner == null || owner.state == TracingSession.State.DISABLED
                || !owner.hasProducer(producer.id)) {
            return null;
        }
        return buffer;
    }

    private void countViolation(int targetBuffer) {
        TraceBuffer buffer = buffers.get(targetBuffer);
        if (buffer != null) {
            buffer.recordAbiViolation();
        }
    }

    /**
     * Copies chunks still held by writers, up to their last finished packet (the count each writer
     * publishes with a release store), so data of threads that went quiet is not lost at stop; and moves
     * chunks released but never committed.
     */
    private void scrape(ProducerState producer, TracingSession session) {
        SharedMemoryAbi abi = producer.abi;
        if (abi == null || !producer.connected) {
            return;
        }
        try {
            for (int page = 0; page < abi.pageCount(); page++) {
                int bitmap = abi.pageBitmap(page);
                PageLayout layout = PageHeader.layout(bitmap);
                if (layout == null || layout == PageLayout.NOT_PARTITIONED) {
                    continue;
                }
                for (int chunk = 0; chunk < layout.chunksPerPage(); chunk++) {
                    ChunkState state = PageHeader.chunkState(bitmap, chunk);
                    if (state == ChunkState.COMPLETE) {
                        // Released but never committed (the producer's flush timed out): take it now.
                        int writer = ChunkHeader.writerId(abi.readWriterAndPackets(abi.chunkOffset(page, layout, chunk)));
                        Integer target = producer.writerTargets.get(writer);
                        if (target != null && bufferOwners.get(target) == session) {
                            moveChunk(producer, page, chunk, target);
                        }
                        continue;
                    }
                    if (state != ChunkState.BEING_WRITTEN) {
                        continue;
                    }
                    int offset = abi.chunkOffset(page, layout, chunk);
                    // Acquire load first, copy second: every packet counted in this word was fully written
                    // before the writer's release store of it, so the copy holds all of them. Bytes past
                    // them may be mid-write; the count keeps the reader away from them.
                    int writerAndPackets = abi.readWriterAndPackets(offset);
                    Integer target = producer.writerTargets.get(ChunkHeader.writerId(writerAndPackets));
                    if (target == null || bufferOwners.get(target) != session) {
                        continue;
                    }
                    TraceBuffer buffer = bufferFor(producer, target);
                    if (buffer != null && ChunkHeader.packetCount(ChunkHeader.packetsWordOf(writerAndPackets)) > 0) {
                        buffer.copyChunk(producer.id, ChunkHeader.writerId(writerAndPackets), abi.readChunkId(offset),
                                ChunkHeader.packetsWordOf(writerAndPackets), copyPayload(abi, offset, layout), false);
                    }
                }
            }
        } catch (InternalError e) {
            dropProducer(producer, "its shared memory buffer became inaccessible (" + e.getMessage() + ")");
        }
    }

    private void dropProducer(ProducerState producer, String reason) {
        if (!producer.connected) {
            return;
        }
        producer.connected = false;
        producers.remove(producer.id);
        if (reason != null) {
            LOG.warn("jtrace: disconnecting producer {} ({}): {}", producer.id, producer.name, reason);
        }
        for (TracingSession session : sessions.values()) {
            for (TracingSession.PendingFlush flush : new ArrayList<>(session.pendingFlushes.values())) {
                ackFlush(session, flush, producer.id);
            }
        }
        try {
            producer.callbacks.onDisconnect();
        } catch (RuntimeException e) {
            LOG.warn("jtrace producer {} failed in onDisconnect", producer.name, e);
        }
    }

    private void ensureSmb(ProducerState producer) throws IOException {
        if (producer.smb != null) {
            return;
        }
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(config.smbDirectory(), config.smbSize(), config.smbPageSize());
        try {
            producer.callbacks.onTracingSetup(smb.path(), smb.pageSize());
        } finally {
            // Both sides have it mapped now (onTracingSetup maps before returning): drop the name so no
            // other process can open it.
            smb.unlink();
        }
        producer.smb = smb;
        producer.abi = new SharedMemoryAbi(smb);
    }

    // ------------------------------------------------------------------ sessions

    private long enableTracing(Consumer consumer, TraceConfig traceConfig) {
        validate(traceConfig);
        if (sessions.size() >= config.maxSessions()) {
            throw new ServiceLimitException("too many tracing sessions: " + sessions.size()
                    + " running, the limit is " + config.maxSessions());
        }
        long requested = 0;
        for (TraceConfig.BufferConfig b : traceConfig.getBuffersList()) {
            requested += b.getSizeKb() * 1024L;
        }
        if (totalBufferBytes + requested > config.maxTotalBufferBytes()) {
            throw new ServiceLimitException("trace buffers of " + requested + " bytes would exceed the service limit of "
                    + config.maxTotalBufferBytes() + " bytes (" + totalBufferBytes + " in use)");
        }
        TracingSession session = new TracingSession(nextSessionId++, consumer, traceConfig, ClockReader.snapshot());
        for (TraceConfig.BufferConfig b : traceConfig.getBuffersList()) {
            int bufferId = nextBufferId++;
            TraceBuffer.Policy policy = b.getFillPolicy() == TraceConfig.BufferConfig.FillPolicy.DISCARD
                    ? TraceBuffer.Policy.DISCARD : TraceBuffer.Policy.RING;
            buffers.put(bufferId, new TraceBuffer(b.getSizeKb() * 1024L, policy));
            bufferOwners.put(bufferId, session);
            session.bufferIds.add(bufferId);
        }
        totalBufferBytes += requested;
        sessions.put(session.id, session);
        for (TraceConfig.DataSource ds : traceConfig.getDataSourcesList()) {
            for (ProducerState producer : new ArrayList<>(producers.values())) {
                if (producer.dataSources.contains(ds.getConfig().getName()) && matchesFilter(ds, producer)) {
                    startInstance(session, producer, ds);
                }
            }
        }
        if (traceConfig.getDurationMs() > 0) {
            session.durationTimer = taskRunner.schedule(() -> post(() -> disable(session)),
                    traceConfig.getDurationMs(), TimeUnit.MILLISECONDS);
        }
        return session.id;
    }

    private static void validate(TraceConfig c) {
        if (c.getBuffersCount() == 0) {
            throw new InvalidConfigException("the trace config has no buffers: add at least one `buffers { size_kb: N }`");
        }
        for (int i = 0; i < c.getBuffersCount(); i++) {
            if (c.getBuffers(i).getSizeKb() <= 0) {
                throw new InvalidConfigException("buffers[" + i + "].size_kb must be positive");
            }
        }
        if (c.getDataSourcesCount() == 0) {
            throw new InvalidConfigException("the trace config has no data_sources");
        }
        for (int i = 0; i < c.getDataSourcesCount(); i++) {
            DataSourceConfig ds = c.getDataSources(i).getConfig();
            if (ds.getName().isEmpty()) {
                throw new InvalidConfigException("data_sources[" + i + "].config.name is empty");
            }
            if (ds.getTargetBuffer() >= c.getBuffersCount()) {
                throw new InvalidConfigException("data_sources[" + i + "] (" + ds.getName() + ") has target_buffer "
                        + ds.getTargetBuffer() + " but the config has only " + c.getBuffersCount() + " buffer(s)");
            }
        }
    }

    private static boolean matchesFilter(TraceConfig.DataSource ds, ProducerState producer) {
        return ds.getProducerNameFilterCount() == 0 || ds.getProducerNameFilterList().contains(producer.name);
    }

    private void startInstance(TracingSession session, ProducerState producer, TraceConfig.DataSource ds) {
        try {
            ensureSmb(producer);
        } catch (IOException | RuntimeException e) {
            LOG.warn("jtrace: cannot set up shared memory for producer {}: {}", producer.name, e.toString());
            return;
        }
        long instanceId = nextInstanceId++;
        int globalBuffer = session.bufferIds.get(ds.getConfig().getTargetBuffer());
        DataSourceConfig instanceConfig = ds.getConfig().toBuilder()
                .setTargetBuffer(globalBuffer)
                .setTracingSessionId(session.id)
                .build();
        session.instances.add(new TracingSession.Instance(instanceId, producer.id, instanceConfig.getName()));
        producer.callbacks.setupDataSource(instanceId, instanceConfig);
        producer.callbacks.startDataSource(instanceId, instanceConfig);
    }

    private void stopDataSources(TracingSession session) {
        for (TracingSession.Instance instance : session.instances) {
            ProducerState producer = producers.get(instance.producerId());
            if (producer != null && producer.connected) {
                producer.callbacks.stopDataSource(instance.id());
            }
        }
    }

    private CompletableFuture<Void> disable(TracingSession session) {
        if (session.state != TracingSession.State.STARTED) {
            return session.disabled;
        }
        session.state = TracingSession.State.DISABLING;
        if (session.durationTimer != null) {
            session.durationTimer.cancel(false);
        }
        stopDataSources(session);
        // Stop first, then flush: the producer handles our calls in order, so the flush commits what the
        // data sources wrote while stopping.
        flush(session, flushTimeout(session)).whenComplete((ok, error) -> post(() -> finishDisable(session)));
        return session.disabled;
    }

    private void finishDisable(TracingSession session) {
        if (session.state == TracingSession.State.DISABLED) {
            return;
        }
        for (ProducerState producer : new ArrayList<>(producers.values())) {
            if (session.hasProducer(producer.id)) {
                scrape(producer, session);
            }
        }
        session.state = TracingSession.State.DISABLED;
        session.disabled.complete(null);
        try {
            session.consumer.onTracingDisabled(null);
        } catch (RuntimeException e) {
            LOG.warn("jtrace consumer failed in onTracingDisabled", e);
        }
    }

    private long flushTimeout(TracingSession session) {
        long t = session.config.getFlushTimeoutMs();
        return t > 0 ? t : config.defaultFlushTimeoutMillis();
    }

    private CompletableFuture<Boolean> flush(TracingSession session, long timeoutMillis) {
        Map<Integer, List<Long>> byProducer = new LinkedHashMap<>();
        for (TracingSession.Instance instance : session.instances) {
            ProducerState producer = producers.get(instance.producerId());
            if (producer != null && producer.connected) {
                byProducer.computeIfAbsent(producer.id, k -> new ArrayList<>()).add(instance.id());
            }
        }
        session.flushesRequested++;
        long requestId = nextFlushId++;
        TracingSession.PendingFlush pending = new TracingSession.PendingFlush(requestId, new ArrayList<>(byProducer.keySet()));
        if (byProducer.isEmpty()) {
            session.flushesSucceeded++;
            pending.result.complete(true);
            return pending.result;
        }
        session.pendingFlushes.put(requestId, pending);
        for (Map.Entry<Integer, List<Long>> e : byProducer.entrySet()) {
            long[] ids = e.getValue().stream().mapToLong(Long::longValue).toArray();
            producers.get(e.getKey()).callbacks.flush(requestId, ids);
        }
        taskRunner.schedule(() -> post(() -> {
            if (session.pendingFlushes.remove(requestId) != null) {
                session.flushesFailed++;
                LOG.warn("jtrace: flush {} of session {} timed out after {} ms waiting for producer(s) {}",
                        requestId, session.id, timeoutMillis, pending.waitingFor);
                pending.result.complete(false);
            }
        }), timeoutMillis, TimeUnit.MILLISECONDS);
        return pending.result;
    }

    private void flushComplete(ProducerState producer, long requestId) {
        for (TracingSession session : sessions.values()) {
            for (TracingSession.PendingFlush flush : new ArrayList<>(session.pendingFlushes.values())) {
                // Acking N acks every earlier request of this producer too.
                if (flush.requestId <= requestId) {
                    ackFlush(session, flush, producer.id);
                }
            }
        }
    }

    private static void ackFlush(TracingSession session, TracingSession.PendingFlush flush, int producerId) {
        flush.waitingFor.remove(Integer.valueOf(producerId));
        if (flush.waitingFor.isEmpty() && session.pendingFlushes.remove(flush.requestId) != null) {
            session.flushesSucceeded++;
            flush.result.complete(true);
        }
    }

    private long readBuffers(TracingSession session, PacketSink sink) {
        long delivered = 0;
        if (!session.headerPacketsEmitted) {
            session.headerPacketsEmitted = true;
            delivered += emitServicePacket(sink, servicePacket(session.startClocks.getClocks(0).getTimestamp())
                    .setClockSnapshot(session.startClocks).setFirstPacketOnSequence(true));
            delivered += emitServicePacket(sink, servicePacket(0).setTraceConfig(session.config));
            delivered += emitServicePacket(sink, servicePacket(0).setSystemInfo(systemInfo()));
        }
        ClockSnapshot now = ClockReader.snapshot();
        delivered += emitServicePacket(sink, servicePacket(now.getClocks(0).getTimestamp()).setClockSnapshot(now));
        SequenceIdentity identity = sequenceIdentity();
        for (int bufferId : session.bufferIds) {
            delivered += buffers.get(bufferId).readAll(identity, sink, session.state == TracingSession.State.DISABLED);
        }
        if (session.state == TracingSession.State.DISABLED) {
            delivered += emitServicePacket(sink, servicePacket(0).setTraceStats(traceStats(session)));
        }
        return delivered;
    }

    private TracePacket.Builder servicePacket(long boottime) {
        TracePacket.Builder b = TracePacket.newBuilder()
                .setTrustedPacketSequenceId(SERVICE_SEQUENCE_ID)
                .setTrustedUid(serviceUid)
                .setTrustedPid(servicePid);
        if (boottime > 0) {
            b.setTimestamp(boottime); // no timestamp_clock_id: the trace's default clock, BOOTTIME
        }
        return b;
    }

    private static int emitServicePacket(PacketSink sink, TracePacket.Builder packet) {
        byte[] bytes = packet.build().toByteArray();
        sink.packet(bytes, 0, bytes.length);
        return 1;
    }

    private static SystemInfo systemInfo() {
        return SystemInfo.newBuilder()
                .setUtsname(Utsname.newBuilder()
                        .setSysname(System.getProperty("os.name", ""))
                        .setRelease(System.getProperty("os.version", ""))
                        .setMachine(System.getProperty("os.arch", "")))
                .setNumCpus(Runtime.getRuntime().availableProcessors())
                .setTracingServiceVersion("jtrace")
                .build();
    }

    private TraceStats traceStats(TracingSession session) {
        TraceStats.Builder stats = TraceStats.newBuilder()
                .setProducersConnected(producers.size())
                .setTracingSessions(sessions.size())
                .setTotalBuffers(buffers.size())
                .setFlushesRequested(session.flushesRequested)
                .setFlushesSucceeded(session.flushesSucceeded)
                .setFlushesFailed(session.flushesFailed);
        long invalidPackets = 0;
        for (int bufferId : session.bufferIds) {
            TraceBuffer buffer = buffers.get(bufferId);
            stats.addBufferStats(buffer.counters().toProto(buffer.capacity()));
            invalidPackets += buffer.counters().invalidPackets();
        }
        return stats.setInvalidPackets(invalidPackets).build();
    }

    private SequenceIdentity sequenceIdentity() {
        return new SequenceIdentity() {
            @Override
            public int sequenceId(int producerId, int writerId) {
                return sequenceIds.computeIfAbsent(((long) producerId << 16) | writerId, k -> nextSequenceId++);
            }

            @Override
            public int pid(int producerId) {
                return producerIdentities.get(producerId)[0];
            }

            @Override
            public int uid(int producerId) {
                return producerIdentities.get(producerId)[1];
            }
        };
    }

    private void freeSession(TracingSession session) {
        if (sessions.remove(session.id) == null) {
            return;
        }
        if (session.durationTimer != null) {
            session.durationTimer.cancel(false);
        }
        for (int bufferId : session.bufferIds) {
            TraceBuffer buffer = buffers.remove(bufferId);
            bufferOwners.remove(bufferId);
            totalBufferBytes -= buffer.capacity();
        }
    }

    // ------------------------------------------------------------------ endpoints

    private final class ProducerEndpointImpl implements ProducerEndpoint {
        /** Its fields are read and written on the task thread only (it is handed over by the connect task). */
        private final ProducerState state;

        ProducerEndpointImpl(ProducerState state) {
            this.state = state;
        }

        @Override
        public int producerId() {
            return state.id;
        }

        @Override
        public void registerDataSource(String name) {
            post(() -> TracingService.this.registerDataSource(state, name));
        }

        @Override
        public void registerTraceWriter(int writerId, int targetBuffer) {
            post(() -> state.writerTargets.put(writerId, targetBuffer));
        }

        @Override
        public void unregisterTraceWriter(int writerId) {
            post(() -> state.writerTargets.remove(writerId));
        }

        @Override
        public void commit(CommitRequest request) {
            post(() -> TracingService.this.commit(state, request));
        }

        @Override
        public void flushComplete(long requestId) {
            post(() -> TracingService.this.flushComplete(state, requestId));
        }

        @Override
        public void disconnect() {
            post(() -> dropProducer(state, null));
        }
    }

    private final class ConsumerEndpointImpl implements ConsumerEndpoint {
        private final Consumer consumer;
        /** Owned by the task thread. */
        private TracingSession session;

        ConsumerEndpointImpl(Consumer consumer) {
            this.consumer = consumer;
        }

        @Override
        public CompletableFuture<Long> enableTracing(TraceConfig traceConfig) {
            return call(() -> {
                if (session != null && sessions.containsKey(session.id)) {
                    throw new IllegalStateException("this consumer already has session " + session.id);
                }
                long id = TracingService.this.enableTracing(consumer, traceConfig);
                session = sessions.get(id);
                return id;
            });
        }

        @Override
        public CompletableFuture<Boolean> flush(long timeoutMillis) {
            return call(() -> TracingService.this.flush(requireSession(), timeoutMillis)).thenCompose(f -> f);
        }

        @Override
        public CompletableFuture<Void> disableTracing() {
            return call(() -> disable(requireSession())).thenCompose(f -> f);
        }

        @Override
        public CompletableFuture<Long> readBuffers(PacketSink sink) {
            return call(() -> TracingService.this.readBuffers(requireSession(), sink));
        }

        @Override
        public CompletableFuture<Void> freeBuffers() {
            return call(() -> {
                TracingSession s = requireSession();
                if (s.state == TracingSession.State.STARTED) {
                    stopDataSources(s);
                    finishDisable(s);
                }
                freeSession(s);
                session = null;
                return null;
            });
        }

        private TracingSession requireSession() {
            if (session == null) {
                throw new IllegalStateException("no tracing session: call enableTracing first");
            }
            return session;
        }
    }
}
