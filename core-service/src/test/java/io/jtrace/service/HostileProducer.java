package io.jtrace.service;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A producer under the test's control that plays by none of the rules: the test writes whatever it
 * likes into its SMB and sends whatever commits it likes. It answers flushes (so the service does not
 * wait on it) and keeps its SMB file open, so a test can truncate it under the service.
 */
final class HostileProducer implements Producer {
    volatile ProducerEndpoint endpoint;
    volatile SharedMemoryBuffer smb;
    volatile FileChannel file;
    final CompletableFuture<DataSourceConfig> started = new CompletableFuture<>();
    /** Requests to clear incremental state received. */
    final AtomicInteger clears = new AtomicInteger();

    /** Connects a hostile producer as {@code name} (uid, pid) that registers the data source {@code dataSource}. */
    static HostileProducer connect(TracingService service, String name, int uid, int pid, String dataSource) {
        HostileProducer producer = new HostileProducer();
        producer.endpoint = service.connectProducer(producer, name, uid, pid);
        producer.endpoint.registerDataSource(dataSource);
        return producer;
    }

    /** The same, connected as a producer of this JVM: trusted, its packets never validated. */
    static HostileProducer connectInProcess(TracingService service, String name, String dataSource) {
        HostileProducer producer = new HostileProducer();
        producer.endpoint = service.connectInProcessProducer(producer, name);
        producer.endpoint.registerDataSource(dataSource);
        return producer;
    }

    @Override
    public void onConnect() {}

    @Override
    public void onTracingSetup(Path smbPath, int pageSize) {
        try {
            smb = SharedMemoryBuffer.map(smbPath, pageSize);
            file = FileChannel.open(smbPath, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void setupDataSource(long instanceId, DataSourceConfig config) {}

    @Override
    public void startDataSource(long instanceId, DataSourceConfig config) {
        started.complete(config);
    }

    @Override
    public void stopDataSource(long instanceId) {}

    @Override
    public void flush(long requestId, long[] instanceIds) {
        endpoint.flushComplete(requestId);
    }

    @Override
    public void clearIncrementalState(long[] instanceIds) {
        clears.incrementAndGet();
    }

    @Override
    public void onDisconnect() {}
}
