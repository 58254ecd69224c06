package io.jtrace.producer.remote;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.jtrace.ipc.IpcClient;
import io.jtrace.ipc.ReplyHandler;
import io.jtrace.ipc.ServiceProxy;
import io.jtrace.ports.Calls;
import io.jtrace.ports.CommitDataCodec;
import io.jtrace.ports.PortNames;
import io.jtrace.protos.CommitDataRequest;
import io.jtrace.protos.GetAsyncCommandRequest;
import io.jtrace.protos.GetAsyncCommandResponse;
import io.jtrace.protos.InitializeConnectionRequest;
import io.jtrace.protos.NotifyDataSourceStartedRequest;
import io.jtrace.protos.NotifyDataSourceStoppedRequest;
import io.jtrace.protos.RegisterDataSourceRequest;
import io.jtrace.protos.RegisterTraceWriterRequest;
import io.jtrace.protos.SyncRequest;
import io.jtrace.protos.UnregisterDataSourceRequest;
import io.jtrace.protos.UnregisterTraceWriterRequest;
import io.jtrace.service.DataSourceDescriptor;
import io.jtrace.service.Producer;
import io.jtrace.service.ProducerEndpoint;
import io.jtrace.shm.writer.CommitRequest;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ProducerEndpoint} whose service is in another process: every call is a {@code ProducerPort}
 * call on one IPC connection, and the service's commands, streamed on the one open
 * {@code GetAsyncCommand} call, become calls on the {@link Producer}, on the connection's reader
 * thread and in the order the service sent them (the producer hands them to its own thread).
 *
 * <p>Calls go out in the order they are made (the IPC client writes under its own lock), which is what
 * makes a flush ack ({@code CommitData} with {@code flush_request_id}) follow the chunks it covers.
 */
public final class IpcProducerEndpoint implements ProducerEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(IpcProducerEndpoint.class);

    private final IpcClient client;
    private final ServiceProxy port;
    private final String name;

    private IpcProducerEndpoint(IpcClient client, ServiceProxy port, String name) {
        this.client = client;
        this.port = port;
        this.name = name;
    }

    /**
     * Connects {@code producer} to the service listening on {@code socket}: binds ProducerPort,
     * initializes the connection and opens the command stream. {@code onDisconnect} runs once when the
     * connection is lost, after the producer's own {@code onDisconnect}.
     */
    public static IpcProducerEndpoint connect(Path socket, Producer producer, String name, long timeoutMillis,
                                              Runnable onDisconnect) throws IOException {
        IpcClient client = IpcClient.connect(socket, () -> {
            producer.onDisconnect();
            onDisconnect.run();
        });
        try {
            ServiceProxy port = Calls.await(client.bind(PortNames.PRODUCER_PORT), timeoutMillis, "binding ProducerPort");
            Calls.await(Calls.call(port, "InitializeConnection", InitializeConnectionRequest.newBuilder()
                    .setProducerName(name).setSdkVersion("jtrace").build(), IOException::new), timeoutMillis,
                    "InitializeConnection");
            IpcProducerEndpoint endpoint = new IpcProducerEndpoint(client, port, name);
            port.invoke("GetAsyncCommand", GetAsyncCommandRequest.getDefaultInstance(),
                    new CommandStream(producer, name, client));
            producer.onConnect();
            return endpoint;
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    public boolean isConnected() {
        return client.isConnected();
    }

    /** The service assigns producer ids on its side and does not send them: unknown here. */
    @Override
    public int producerId() {
        return -1;
    }

    @Override
    public void registerDataSource(DataSourceDescriptor descriptor) {
        call("RegisterDataSource", RegisterDataSourceRequest.newBuilder().setDataSourceDescriptor(
                io.jtrace.protos.DataSourceDescriptor.newBuilder().setName(descriptor.name())
                        .setWillNotifyOnStart(descriptor.willNotifyOnStart())
                        .setWillNotifyOnStop(descriptor.willNotifyOnStop())).build());
    }

    @Override
    public void unregisterDataSource(String dataSource) {
        call("UnregisterDataSource", UnregisterDataSourceRequest.newBuilder().setDataSourceName(dataSource).build());
    }

    @Override
    public void registerTraceWriter(int writerId, int targetBuffer) {
        call("RegisterTraceWriter", RegisterTraceWriterRequest.newBuilder().setTraceWriterId(writerId)
                .setTargetBuffer(targetBuffer).build());
    }

    @Override
    public void unregisterTraceWriter(int writerId) {
        call("UnregisterTraceWriter", UnregisterTraceWriterRequest.newBuilder().setTraceWriterId(writerId).build());
    }

    @Override
    public void notifyDataSourceStarted(long instanceId) {
        call("NotifyDataSourceStarted", NotifyDataSourceStartedRequest.newBuilder().setDataSourceId(instanceId).build());
    }

    @Override
    public void notifyDataSourceStopped(long instanceId) {
        call("NotifyDataSourceStopped", NotifyDataSourceStoppedRequest.newBuilder().setDataSourceId(instanceId).build());
    }

    /** From the commit thread: the request is encoded before it returns, so it is released at once. */
    @Override
    public void commit(CommitRequest request) {
        try {
            for (CommitDataRequest message : CommitDataCodec.encode(request)) {
                call("CommitData", message);
            }
        } finally {
            request.release();
        }
    }

    /** Perfetto's flush ack: a CommitData carrying the flush's id, sent after the chunks it covers. */
    @Override
    public void flushComplete(long requestId) {
        call("CommitData", CommitDataRequest.newBuilder().setFlushRequestId(requestId).build());
    }

    /** jtrace's producers call Sync once the SMB is mapped; the service then removes its file name. */
    @Override
    public void smbMapped() {
        call("Sync", SyncRequest.getDefaultInstance());
    }

    @Override
    public void disconnect() {
        client.close();
    }

    /** A call whose reply carries nothing the producer needs: only a failure is worth a log line. */
    private void call(String method, MessageLite args) {
        port.invoke(method, args, new ReplyHandler() {
            @Override
            public void onReply(ByteString reply, boolean hasMore) {}

            @Override
            public void onFailure(String reason) {
                LOG.debug("jtrace producer {}: {} failed: {}", name, method, reason);
            }
        });
    }

    /** The service's commands, in the order it sent them, as calls on the producer. */
    private static final class CommandStream implements ReplyHandler {
        private final Producer producer;
        private final String name;
        private final IpcClient client;

        CommandStream(Producer producer, String name, IpcClient client) {
            this.producer = producer;
            this.name = name;
            this.client = client;
        }

        @Override
        public void onReply(ByteString reply, boolean hasMore) {
            GetAsyncCommandResponse command;
            try {
                command = GetAsyncCommandResponse.parseFrom(reply);
            } catch (InvalidProtocolBufferException e) {
                LOG.warn("jtrace producer {}: the service sent a command that does not parse; disconnecting", name);
                client.close();
                return;
            }
            try {
                dispatch(command);
            } catch (RuntimeException e) {
                // A command the producer cannot carry out must not stop the stream for the ones after it.
                LOG.warn("jtrace producer {}: command {} failed", name, command.getCmdCase(), e);
            }
        }

        private void dispatch(GetAsyncCommandResponse command) {
            switch (command.getCmdCase()) {
                case SETUP_TRACING -> producer.onTracingSetup(Path.of(command.getSetupTracing().getJtraceSmbPath()),
                        command.getSetupTracing().getSharedBufferPageSizeKb() * 1024);
                case SETUP_DATA_SOURCE -> producer.setupDataSource(command.getSetupDataSource().getNewInstanceId(),
                        command.getSetupDataSource().getConfig());
                case START_DATA_SOURCE -> producer.startDataSource(command.getStartDataSource().getNewInstanceId(),
                        command.getStartDataSource().getConfig());
                case STOP_DATA_SOURCE -> producer.stopDataSource(command.getStopDataSource().getInstanceId());
                case FLUSH -> producer.flush(command.getFlush().getRequestId(),
                        command.getFlush().getDataSourceIdsList().stream().mapToLong(Long::longValue).toArray());
                case CLEAR_INCREMENTAL_STATE -> producer.clearIncrementalState(
                        command.getClearIncrementalState().getDataSourceIdsList().stream()
                                .mapToLong(Long::longValue).toArray());
                default -> LOG.debug("jtrace producer {}: command {} ignored", name, command.getCmdCase());
            }
        }

        @Override
        public void onFailure(String reason) {
            LOG.debug("jtrace producer {}: command stream ended: {}", name, reason);
        }
    }
}
