package io.jtrace.service.port;

import io.jtrace.ipc.IpcConnection;
import io.jtrace.ipc.Reply;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.GetAsyncCommandResponse;
import io.jtrace.service.Producer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer in another process, as the service calls it: each call becomes a command streamed on the
 * producer's open {@code GetAsyncCommand} call. Commands given before the producer opened that call wait
 * for it, in order.
 *
 * <p>Threads: the service calls in from its task thread; {@link #attach} comes from the IPC host's I/O
 * thread. The two meet under this object's monitor, held only to queue or hand over a command (never
 * during I/O: {@link Reply#stream} only queues).
 */
final class RemoteProducer implements Producer {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteProducer.class);

    private final IpcConnection connection;
    /** Guarded by this. */
    private Reply commands;
    /** Guarded by this; null once attached. */
    private List<GetAsyncCommandResponse> waiting = new ArrayList<>();

    RemoteProducer(IpcConnection connection) {
        this.connection = connection;
    }

    /** The producer opened its command stream; false if it had one already. */
    synchronized boolean attach(Reply stream) {
        if (commands != null) {
            return false;
        }
        commands = stream;
        for (GetAsyncCommandResponse command : waiting) {
            stream.stream(command);
        }
        waiting = null;
        return true;
    }

    private synchronized void send(GetAsyncCommandResponse command) {
        if (commands != null) {
            commands.stream(command);
        } else {
            waiting.add(command);
        }
    }

    @Override
    public void onConnect() {
        LOG.debug("jtrace: remote producer on connection {} ({}) connected", connection.id(), connection.peer());
    }

    @Override
    public void onTracingSetup(Path smbPath, int pageSize) {
        send(GetAsyncCommandResponse.newBuilder().setSetupTracing(GetAsyncCommandResponse.SetupTracing.newBuilder()
                .setSharedBufferPageSizeKb(pageSize / 1024).setJtraceSmbPath(smbPath.toString())).build());
    }

    @Override
    public void setupDataSource(long instanceId, DataSourceConfig config) {
        send(GetAsyncCommandResponse.newBuilder().setSetupDataSource(GetAsyncCommandResponse.SetupDataSource.newBuilder()
                .setNewInstanceId(instanceId).setConfig(config)).build());
    }

    @Override
    public void startDataSource(long instanceId, DataSourceConfig config) {
        send(GetAsyncCommandResponse.newBuilder().setStartDataSource(GetAsyncCommandResponse.StartDataSource.newBuilder()
                .setNewInstanceId(instanceId).setConfig(config)).build());
    }

    @Override
    public void stopDataSource(long instanceId) {
        send(GetAsyncCommandResponse.newBuilder().setStopDataSource(GetAsyncCommandResponse.StopDataSource.newBuilder()
                .setInstanceId(instanceId)).build());
    }

    @Override
    public void flush(long requestId, long[] instanceIds) {
        GetAsyncCommandResponse.Flush.Builder flush = GetAsyncCommandResponse.Flush.newBuilder().setRequestId(requestId);
        for (long id : instanceIds) {
            flush.addDataSourceIds(id);
        }
        send(GetAsyncCommandResponse.newBuilder().setFlush(flush).build());
    }

    @Override
    public void clearIncrementalState(long[] instanceIds) {
        GetAsyncCommandResponse.ClearIncrementalState.Builder clear = GetAsyncCommandResponse.ClearIncrementalState.newBuilder();
        for (long id : instanceIds) {
            clear.addDataSourceIds(id);
        }
        send(GetAsyncCommandResponse.newBuilder().setClearIncrementalState(clear).build());
    }

    /** The service dropped this producer (it asked to go, or its SMB failed): the connection goes too. */
    @Override
    public void onDisconnect() {
        connection.close("the tracing service disconnected this producer");
    }
}
