package io.jtrace.service;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.buffer.PromotionTarget;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data source instances of the sessions: one per producer that has a data source a session asks
 * for (and passes its producer name filter), started when the session starts or when the producer
 * registers the data source later; their started and stopped notifications; and which instances a
 * session's flushes and incremental state clears go to. Service thread only.
 */
final class DataSourceInstances {
    // Logs as TracingService: the agent prints the short logger name, and that is the name users know.
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);

    private final ServiceConfig config;
    private final ServiceThread thread;
    private final Map<Integer, ProducerState> producers;
    private final Map<Long, TracingSession> sessions;
    private long nextInstanceId = 1;

    DataSourceInstances(ServiceConfig config, ServiceThread thread, Map<Integer, ProducerState> producers,
                        Map<Long, TracingSession> sessions) {
        this.config = config;
        this.thread = thread;
        this.producers = producers;
        this.sessions = sessions;
    }

    /** Starts the data sources of a new session on every producer that has them. */
    void startAll(TracingSession session) {
        for (TraceConfig.DataSource ds : session.config.getDataSourcesList()) {
            for (ProducerState producer : new ArrayList<>(producers.values())) {
                if (producer.dataSources.containsKey(ds.getConfig().getName()) && matchesFilter(ds, producer)) {
                    startInstance(session, producer, ds);
                }
            }
        }
    }

    /** A producer registered a new data source. */
    void dataSourceRegistered(ProducerState producer, DataSourceDescriptor descriptor) {
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
                .setTargetBufferOverwrites(session.overwritingBuffers.contains(globalBuffer))
                .setNeedsIncrementalStateByChunk(true)
                .build();
        if (producer.promotions != null && session.file != null) {
            // The agent's own writers append their chunks to the file themselves (Promotion).
            long limit = session.config.getMaxFileSizeBytes();
            producer.promotions.offer(new PromotionTarget(globalBuffer, producer.abi, session.file, producer.pid,
                    producer.uid, limit > 0 ? limit : Long.MAX_VALUE));
        }
        DataSourceDescriptor descriptor = producer.dataSources.get(instanceConfig.getName());
        TracingSession.Instance instance = new TracingSession.Instance(instanceId, producer.id, descriptor);
        instance.started = !descriptor.willNotifyOnStart();
        session.instances.add(instance);
        producer.callbacks.setupDataSource(instanceId, instanceConfig);
        producer.callbacks.startDataSource(instanceId, instanceConfig);
    }

    private void ensureSmb(ProducerState producer) throws IOException {
        if (producer.smb != null) {
            return;
        }
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(config.smbDirectory(), config.smbSize(), config.smbPageSize());
        producer.smb = smb;
        producer.abi = new SharedMemoryAbi(smb);
        // The name stays until the producer says it mapped the file (smbMapped), goes away, or runs out
        // of time: a producer in another process maps it after this call has returned.
        thread.postAfter(ProducerEndpoint.SMB_MAP_TIMEOUT_MS, producer::unlinkSmb);
        producer.callbacks.onTracingSetup(smb.path(), smb.pageSize());
    }

    void started(ProducerState producer, long instanceId) {
        TracingSession session = sessionOf(producer, instanceId);
        if (session != null) {
            session.instance(instanceId).started = true;
            checkStarted(session);
        }
    }

    void stopped(ProducerState producer, long instanceId) {
        TracingSession session = sessionOf(producer, instanceId);
        if (session != null) {
            session.instance(instanceId).stopped = true;
            checkStopped(session);
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

    static void checkStarted(TracingSession session) {
        if (!session.started.isDone() && notStarted(session).isEmpty()) {
            session.started.complete(session.id);
        }
    }

    static List<String> notStarted(TracingSession session) {
        List<String> names = new ArrayList<>();
        for (TracingSession.Instance instance : session.instances) {
            if (!instance.started) {
                names.add(instance.descriptor.name());
            }
        }
        return names;
    }

    void stopAll(TracingSession session) {
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

    static void checkStopped(TracingSession session) {
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

    /** A producer disconnected. */
    void producerGone(int producerId) {
        instancesGone(producerId, null);
    }

    /** A producer unregistered a data source. */
    void dataSourceGone(int producerId, String name) {
        instancesGone(producerId, name);
    }

    /** The producer's instances (of data source {@code name}, or all when null) will never notify. */
    private void instancesGone(int producerId, String name) {
        for (TracingSession session : sessions.values()) {
            // Its instances will never notify: stop waiting for them.
            for (TracingSession.Instance instance : session.instances) {
                if (instance.producerId == producerId && (name == null || name.equals(instance.descriptor.name()))) {
                    instance.started = true;
                    instance.stopped = true;
                }
            }
            checkStarted(session);
            checkStopped(session);
        }
    }

    void clearIncrementalState(TracingSession session) {
        if (session.state != TracingSession.State.STARTED) {
            return;
        }
        if (session.ringTurnover != null) {
            session.ringTurnover.cleared();
        }
        for (Map.Entry<Integer, long[]> e : byProducer(session).entrySet()) {
            producers.get(e.getKey()).callbacks.clearIncrementalState(e.getValue());
        }
    }

    /** The session's instances on connected producers, by producer id. */
    Map<Integer, long[]> byProducer(TracingSession session) {
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
}
