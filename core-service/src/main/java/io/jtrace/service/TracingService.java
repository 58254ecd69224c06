package io.jtrace.service;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.CommitRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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

    /** Data sources that notify on stop get this long when the config sets no data_source_stop_timeout_ms. */
    static final long DEFAULT_STOP_TIMEOUT_MS = 5000;
    static final long DEFAULT_FILE_WRITE_PERIOD_MS = 5000;
    static final long MIN_FILE_WRITE_PERIOD_MS = 100;

    private final ServiceConfig config;
    private final ScheduledExecutorService taskRunner;
    /** The only counter touched off the task thread: ids are handed out at connect time. */
    private final AtomicInteger producerIds = new AtomicInteger();

    // ---- state owned by the task thread ----
    private final Map<Integer, ProducerState> producers = new LinkedHashMap<>();
    private final Map<Long, TracingSession> sessions = new LinkedHashMap<>();
    private final Map<Integer, TraceBuffer> buffers = new HashMap<>();
    private final Map<Integer, TracingSession> bufferOwners = new HashMap<>();
    private final SequenceRegistry sequences = new SequenceRegistry();
    private long nextSessionId = 1;
    private int nextBufferId = 1;
    private long nextInstanceId = 1;
    private long totalBufferBytes;
    private final ChunkMover chunkMover = new ChunkMover(buffers, bufferOwners, sequences);
    private final ServicePackets servicePackets;
    private final FlushCoordinator flushes;

    public TracingService(ServiceConfig config) {
        this.config = config;
        this.servicePackets = new ServicePackets(ProcessIdentity.pid(), ProcessIdentity.uid());
        this.taskRunner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jtrace-service");
            t.setDaemon(true);
            return t;
        });
        this.flushes = new FlushCoordinator(producers, taskRunner, this::post);
    }

    /** Connects a producer; identity (uid, pid) comes from the transport, never from the producer. */
    public ProducerEndpoint connectProducer(Producer producer, String name, int uid, int pid) {
        ProducerState state = new ProducerState(producerIds.incrementAndGet(), name, uid, pid, producer);
        post(() -> {
            producers.put(state.id, state);
            sequences.producerConnected(state.id, state.pid, state.uid);
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
                if (session.state != TracingSession.State.DISABLED) {
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
                } catch (Throwable t) {
                    // Whatever failed (our bug, or an Error thrown by a caller's sink), the caller learns
                    // of it instead of waiting forever; only the VM's own errors go on up.
                    result.completeExceptionally(t);
                    if (t instanceof VirtualMachineError) {
                        throw (VirtualMachineError) t;
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("jtrace service is closed"));
        }
        return result;
    }

    // ------------------------------------------------------------------ producers

    private void registerDataSource(ProducerState producer, DataSourceDescriptor descriptor) {
        if (!producer.connected || producer.dataSources.putIfAbsent(descriptor.name(), descriptor) != null) {
            return;
        }
        // A producer that shows up after a session started still joins it.
        for (TracingSession session : sessions.values()) {
            if (session.state != TracingSession.State.STARTED) {
                continue;
            }
            for (TraceConfig.DataSource ds : session.config.getDataSourcesList()) {
                if (ds.getConfig().getName().equals(descriptor.name()) && matchesFilter(ds, producer)) {
                    startInstance(session, producer, ds);
                }
            }
        }
    }

    private void commit(ProducerState producer, CommitRequest request) {
        try {
            if (producer.connected && producer.abi != null) {
                chunkMover.commit(producer, request);
                drainFilledBuffers(request);
            }
        } catch (InternalError e) {
            // The JVM reports access to a mapping whose file was truncated as InternalError (SIGBUS).
            dropProducer(producer, "its shared memory buffer became inaccessible (" + e.getMessage() + ")");
        } finally {
            request.release();
        }
    }

    /**
     * A session that streams into a file must not overwrite what it could have saved: once a sixteenth
     * of one of its buffers has filled since the last write, the file gets what is readable now instead
     * of at the next file_write_period. Small, frequent writes keep each pause of chunk moving short
     * (the SMB fills while this thread writes the file).
     */
    private void drainFilledBuffers(CommitRequest request) {
        int checked = -1;
        for (int i = 0; i < request.size(); i++) {
            int bufferId = request.targetBuffer(i);
            if (bufferId == checked) {
                continue;
            }
            checked = bufferId;
            TraceBuffer buffer = buffers.get(bufferId);
            TracingSession owner = bufferOwners.get(bufferId);
            // The second condition keeps chunks that cannot be read yet (a sequence waiting for a patch
            // or a gap) from making every commit drain again.
            if (buffer != null && owner != null && owner.file != null
                    && buffer.used() - buffer.usedAfterLastRead() > buffer.capacity() / 16) {
                writeIntoFile(owner);
            }
        }
    }

    private void scrape(ProducerState producer, TracingSession session) {
        try {
            chunkMover.scrape(producer, session);
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
        flushes.producerGone(sessions.values(), producer.id);
        for (TracingSession session : sessions.values()) {
            // Its instances will never notify: stop waiting for them.
            for (TracingSession.Instance instance : session.instances) {
                if (instance.producerId == producer.id) {
                    instance.started = true;
                    instance.stopped = true;
                }
            }
            checkStarted(session);
            checkStopped(session);
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

    // ------------------------------------------------------------------ sessions: start

    private TracingSession enableTracing(Consumer consumer, TraceConfig traceConfig) {
        SessionConfigValidator.validate(traceConfig);
        String name = traceConfig.getUniqueSessionName();
        if (!name.isEmpty()) {
            for (TracingSession other : sessions.values()) {
                if (name.equals(other.config.getUniqueSessionName())) {
                    throw new SessionNameTakenException("a session named '" + name + "' is already running (session "
                            + other.id + ")");
                }
            }
        }
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
        TraceFileWriter file = null;
        if (traceConfig.getWriteIntoFile()) {
            try {
                file = new TraceFileWriter(Path.of(traceConfig.getOutputPath()));
            } catch (IOException | RuntimeException e) {
                throw new InvalidConfigException("output_path '" + traceConfig.getOutputPath() + "' cannot be written: " + e);
            }
        }
        TracingSession session = new TracingSession(nextSessionId++, consumer, traceConfig, ClockReader.snapshot());
        session.file = file;
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
                if (producer.dataSources.containsKey(ds.getConfig().getName()) && matchesFilter(ds, producer)) {
                    startInstance(session, producer, ds);
                }
            }
        }
        scheduleTimers(session);
        checkStarted(session);
        return session;
    }

    private void scheduleTimers(TracingSession session) {
        TraceConfig c = session.config;
        if (c.getDurationMs() > 0) {
            session.timers.add(taskRunner.schedule(() -> post(() -> disable(session)),
                    c.getDurationMs(), TimeUnit.MILLISECONDS));
        }
        if (c.getFlushPeriodMs() > 0) {
            session.timers.add(taskRunner.scheduleAtFixedRate(() -> post(() -> {
                if (session.state == TracingSession.State.STARTED) {
                    flush(session, flushTimeout(session));
                }
            }), c.getFlushPeriodMs(), c.getFlushPeriodMs(), TimeUnit.MILLISECONDS));
        }
        long clearPeriod = c.getIncrementalStateConfig().getClearPeriodMs();
        if (clearPeriod > 0) {
            session.timers.add(taskRunner.scheduleAtFixedRate(() -> post(() -> clearIncrementalState(session)),
                    clearPeriod, clearPeriod, TimeUnit.MILLISECONDS));
        }
        if (session.file != null) {
            long period = c.getFileWritePeriodMs() > 0
                    ? Math.max(MIN_FILE_WRITE_PERIOD_MS, c.getFileWritePeriodMs()) : DEFAULT_FILE_WRITE_PERIOD_MS;
            session.timers.add(taskRunner.scheduleAtFixedRate(() -> post(() -> writeIntoFile(session)),
                    period, period, TimeUnit.MILLISECONDS));
        }
        long startTimeout = stopTimeout(session);
        session.timers.add(taskRunner.schedule(() -> post(() -> {
            if (!session.started.isDone()) {
                LOG.warn("jtrace: session {}: data sources {} did not report started within {} ms; tracing anyway",
                        session.id, notStarted(session), startTimeout);
                session.started.complete(session.id);
            }
        }), startTimeout, TimeUnit.MILLISECONDS));
    }

    private void clearIncrementalState(TracingSession session) {
        if (session.state != TracingSession.State.STARTED) {
            return;
        }
        for (Map.Entry<Integer, long[]> e : instancesByProducer(session).entrySet()) {
            producers.get(e.getKey()).callbacks.clearIncrementalState(e.getValue());
        }
    }

    /** The session's instances on connected producers, by producer id. */
    private Map<Integer, long[]> instancesByProducer(TracingSession session) {
        Map<Integer, List<Long>> byProducer = new LinkedHashMap<>();
        for (TracingSession.Instance instance : session.instances) {
            ProducerState producer = producers.get(instance.producerId);
            if (producer != null && producer.connected) {
                byProducer.computeIfAbsent(producer.id, k -> new ArrayList<>()).add(instance.id);
            }
        }
        Map<Integer, long[]> result = new LinkedHashMap<>();
        byProducer.forEach((id, ids) -> result.put(id, ids.stream().mapToLong(Long::longValue).toArray()));
        return result;
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
        DataSourceDescriptor descriptor = producer.dataSources.get(instanceConfig.getName());
        TracingSession.Instance instance = new TracingSession.Instance(instanceId, producer.id, descriptor);
        instance.started = !descriptor.willNotifyOnStart();
        session.instances.add(instance);
        producer.callbacks.setupDataSource(instanceId, instanceConfig);
        producer.callbacks.startDataSource(instanceId, instanceConfig);
    }

    private void dataSourceStarted(ProducerState producer, long instanceId) {
        TracingSession session = sessionOf(producer, instanceId);
        if (session != null) {
            session.instance(instanceId).started = true;
            checkStarted(session);
        }
    }

    /** The session of one of this producer's instances, or null (ids from anyone else are ignored). */
    private TracingSession sessionOf(ProducerState producer, long instanceId) {
        for (TracingSession session : sessions.values()) {
            TracingSession.Instance instance = session.instance(instanceId);
            if (instance != null && instance.producerId == producer.id) {
                return session;
            }
        }
        return null;
    }

    private static void checkStarted(TracingSession session) {
        if (!session.started.isDone() && notStarted(session).isEmpty()) {
            session.started.complete(session.id);
        }
    }

    private static List<String> notStarted(TracingSession session) {
        List<String> names = new ArrayList<>();
        for (TracingSession.Instance instance : session.instances) {
            if (!instance.started) {
                names.add(instance.descriptor.name());
            }
        }
        return names;
    }

    // ------------------------------------------------------------------ sessions: stop

    private CompletableFuture<Void> disable(TracingSession session) {
        if (session.state != TracingSession.State.STARTED) {
            return session.disabled;
        }
        session.state = TracingSession.State.DISABLING;
        session.cancelTimers();
        session.started.complete(session.id);
        session.stopped = new CompletableFuture<>();
        stopDataSources(session);
        checkStopped(session);
        long timeout = stopTimeout(session);
        taskRunner.schedule(() -> post(() -> {
            if (!session.stopped.isDone()) {
                LOG.warn("jtrace: session {}: data sources did not report stopped within {} ms", session.id, timeout);
                session.stopped.complete(null);
            }
        }), timeout, TimeUnit.MILLISECONDS);
        // Stop first, then flush: the producer handles our calls in order, so the flush commits what the
        // data sources wrote while stopping.
        session.stopped.thenRun(() -> post(() -> flush(session, flushTimeout(session))
                .whenComplete((ok, error) -> post(() -> finishDisable(session)))));
        return session.disabled;
    }

    private void stopDataSources(TracingSession session) {
        for (TracingSession.Instance instance : session.instances) {
            ProducerState producer = producers.get(instance.producerId);
            if (producer != null && producer.connected) {
                producer.callbacks.stopDataSource(instance.id);
            }
            if (!instance.descriptor.willNotifyOnStop() || producer == null || !producer.connected) {
                instance.stopped = true;
            }
        }
    }

    private void dataSourceStopped(ProducerState producer, long instanceId) {
        TracingSession session = sessionOf(producer, instanceId);
        if (session != null) {
            session.instance(instanceId).stopped = true;
            checkStopped(session);
        }
    }

    private static void checkStopped(TracingSession session) {
        if (session.stopped == null || session.stopped.isDone()) {
            return;
        }
        for (TracingSession.Instance instance : session.instances) {
            if (!instance.stopped) {
                return;
            }
        }
        session.stopped.complete(null);
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
        String error = null;
        if (session.file != null) {
            error = finishFile(session);
        }
        session.disabled.complete(null);
        try {
            session.consumer.onTracingDisabled(error);
        } catch (RuntimeException e) {
            LOG.warn("jtrace consumer failed in onTracingDisabled", e);
        }
    }

    private long flushTimeout(TracingSession session) {
        long t = session.config.getFlushTimeoutMs();
        return t > 0 ? t : config.defaultFlushTimeoutMillis();
    }

    private long stopTimeout(TracingSession session) {
        long t = session.config.getDataSourceStopTimeoutMs();
        return t > 0 ? t : DEFAULT_STOP_TIMEOUT_MS;
    }

    // ------------------------------------------------------------------ flush

    private CompletableFuture<Boolean> flush(TracingSession session, long timeoutMillis) {
        return flushes.flush(session, instancesByProducer(session), timeoutMillis);
    }

    // ------------------------------------------------------------------ read out

    /** Everything readable now: header (first time), a clock snapshot, the buffers, stats at the end. */
    private long readInto(TracingSession session, PacketSink sink) {
        long delivered = 0;
        if (!session.headerPacketsEmitted) {
            session.headerPacketsEmitted = true;
            delivered += servicePackets.writeHeader(session, sink);
        }
        delivered += servicePackets.writeClockSnapshot(ClockReader.snapshot(), sink);
        boolean ended = session.state == TracingSession.State.DISABLED;
        for (int bufferId : session.bufferIds) {
            delivered += buffers.get(bufferId).readAll(sequences, sink, ended);
        }
        if (ended) {
            delivered += servicePackets.writeStats(traceStats(session), sink);
        }
        return delivered;
    }

    private long readBuffers(TracingSession session, PacketSink sink) {
        if (session.config.getWriteIntoFile()) {
            throw new IllegalStateException("session " + session.id + " writes into " + session.config.getOutputPath()
                    + "; read that file instead");
        }
        return readInto(session, sink);
    }

    /** A write_into_file period: drain what is readable into the file, so the buffers stay bounded. */
    private void writeIntoFile(TracingSession session) {
        if (session.file == null || session.state != TracingSession.State.STARTED) {
            return;
        }
        try {
            readInto(session, session.file);
            session.file.flush();
        } catch (UncheckedIOException | IOException e) {
            LOG.error("jtrace: session {}: writing {} failed, stopping the session", session.id,
                    session.config.getOutputPath(), e);
            disable(session);
            return;
        }
        long max = session.config.getMaxFileSizeBytes();
        if (max > 0 && session.file.bytes() >= max) {
            LOG.warn("jtrace: session {}: {} reached max_file_size_bytes ({}); stopping the session", session.id,
                    session.config.getOutputPath(), max);
            disable(session);
        }
    }

    /** The last read into the file, then close it. Returns an error message, or null. */
    private String finishFile(TracingSession session) {
        TraceFileWriter file = session.file;
        session.file = null;
        try (file) {
            readInto(session, file);
            return null;
        } catch (UncheckedIOException | IOException e) {
            LOG.error("jtrace: session {}: finishing {} failed", session.id, session.config.getOutputPath(), e);
            return "writing " + session.config.getOutputPath() + " failed: " + e.getMessage();
        }
    }

    private TraceStats traceStats(TracingSession session) {
        TraceStats.Builder stats = TraceStats.newBuilder()
                .setProducersConnected(producers.size())
                .setProducersSeen(sequences.producersSeen())
                .setTracingSessions(sessions.size())
                .setTotalBuffers(buffers.size())
                .setFlushesRequested(session.flushesRequested)
                .setFlushesSucceeded(session.flushesSucceeded)
                .setFlushesFailed(session.flushesFailed)
                .setChunksDiscarded(chunkMover.refusedChunks + chunkMover.discardedScrapes)
                .setPatchesDiscarded(chunkMover.refusedPatches);
        long invalidPackets = 0;
        for (int bufferId : session.bufferIds) {
            TraceBuffer buffer = buffers.get(bufferId);
            stats.addBufferStats(buffer.counters().toProto(buffer.capacity()));
            invalidPackets += buffer.counters().invalidPackets();
        }
        return stats.setInvalidPackets(invalidPackets).build();
    }

    private void freeSession(TracingSession session) {
        if (sessions.remove(session.id) == null) {
            return;
        }
        session.cancelTimers();
        if (session.file != null) {
            try {
                session.file.close();
            } catch (IOException e) {
                LOG.warn("jtrace: closing {} failed", session.config.getOutputPath(), e);
            }
            session.file = null;
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
        public void registerDataSource(DataSourceDescriptor descriptor) {
            post(() -> TracingService.this.registerDataSource(state, descriptor));
        }

        @Override
        public void notifyDataSourceStarted(long instanceId) {
            post(() -> dataSourceStarted(state, instanceId));
        }

        @Override
        public void notifyDataSourceStopped(long instanceId) {
            post(() -> dataSourceStopped(state, instanceId));
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
            post(() -> flushes.acked(sessions.values(), state.id, requestId));
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
                session = TracingService.this.enableTracing(consumer, traceConfig);
                return session.started;
            }).thenCompose(f -> f);
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
                if (s.state != TracingSession.State.DISABLED) {
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
