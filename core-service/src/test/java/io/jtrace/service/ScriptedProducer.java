package io.jtrace.service;

import io.jtrace.protos.DataSourceConfig;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A producer that writes nothing and records what the service asks of it, so a test decides when (or
 * whether) it notifies started/stopped or answers a flush.
 */
final class ScriptedProducer implements Producer {
    volatile ProducerEndpoint endpoint;
    volatile boolean answerFlushes = true;
    final BlockingQueue<Long> started = new LinkedBlockingQueue<>();
    final BlockingQueue<DataSourceConfig> startConfigs = new LinkedBlockingQueue<>();
    final BlockingQueue<Long> stopped = new LinkedBlockingQueue<>();
    final BlockingQueue<Long> flushes = new LinkedBlockingQueue<>();
    final BlockingQueue<long[]> clears = new LinkedBlockingQueue<>();

    static ScriptedProducer connect(TracingService service, DataSourceDescriptor descriptor) {
        ScriptedProducer producer = new ScriptedProducer();
        producer.endpoint = service.connectProducer(producer, "scripted", 1, 1);
        producer.endpoint.registerDataSource(descriptor);
        return producer;
    }

    @Override
    public void onConnect() {}

    @Override
    public void onTracingSetup(Path smbPath, int pageSize) {}

    @Override
    public void setupDataSource(long instanceId, DataSourceConfig config) {}

    @Override
    public void startDataSource(long instanceId, DataSourceConfig config) {
        startConfigs.add(config);
        started.add(instanceId);
    }

    @Override
    public void stopDataSource(long instanceId) {
        stopped.add(instanceId);
    }

    @Override
    public void flush(long requestId, long[] instanceIds) {
        flushes.add(requestId);
        if (answerFlushes) {
            endpoint.flushComplete(requestId);
        }
    }

    @Override
    public void clearIncrementalState(long[] instanceIds) {
        clears.add(instanceIds);
    }

    @Override
    public void onDisconnect() {}
}
