package io.jtrace.service.port;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.ipc.IpcConnection;
import io.jtrace.ipc.Reply;
import io.jtrace.ipc.ServiceBinding;
import io.jtrace.ports.CommitDataCodec;
import io.jtrace.protos.CommitDataRequest;
import io.jtrace.protos.CommitDataResponse;
import io.jtrace.protos.DataSourceDescriptor;
import io.jtrace.protos.InitializeConnectionRequest;
import io.jtrace.protos.InitializeConnectionResponse;
import io.jtrace.protos.NotifyDataSourceStartedRequest;
import io.jtrace.protos.NotifyDataSourceStartedResponse;
import io.jtrace.protos.NotifyDataSourceStoppedRequest;
import io.jtrace.protos.NotifyDataSourceStoppedResponse;
import io.jtrace.protos.RegisterDataSourceRequest;
import io.jtrace.protos.RegisterDataSourceResponse;
import io.jtrace.protos.RegisterTraceWriterRequest;
import io.jtrace.protos.RegisterTraceWriterResponse;
import io.jtrace.protos.SyncResponse;
import io.jtrace.protos.UnregisterDataSourceRequest;
import io.jtrace.protos.UnregisterDataSourceResponse;
import io.jtrace.protos.UnregisterTraceWriterRequest;
import io.jtrace.protos.UnregisterTraceWriterResponse;
import io.jtrace.service.ProducerEndpoint;
import io.jtrace.service.TracingService;
import io.jtrace.shm.writer.CommitRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's {@code ProducerPort}: {@code InitializeConnection} makes it a producer of the
 * service, under the identity the socket gives (uid, and pid when verified), never the one it names;
 * its other calls go to that producer's endpoint. Calls arrive on the IPC host's I/O thread, one at a
 * time, so the fields need no lock; the endpoint only posts tasks to the service thread.
 */
final class ProducerPortBinding implements ServiceBinding {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerPortBinding.class);
    /** Writer ids are 15 bits (DESIGN §6). */
    private static final int MAX_WRITER_ID = 32767;

    private final TracingService service;
    private final IpcConnection connection;
    private RemoteProducer producer;
    private ProducerEndpoint endpoint;

    ProducerPortBinding(TracingService service, IpcConnection connection) {
        this.service = service;
        this.connection = connection;
    }

    @Override
    public void invoke(String method, ByteString args, Reply reply) {
        try {
            if (method.equals("InitializeConnection")) {
                initialize(InitializeConnectionRequest.parseFrom(args), reply);
            } else if (endpoint == null) {
                reply.fail(method + " before InitializeConnection");
            } else {
                call(method, args, reply);
            }
        } catch (InvalidProtocolBufferException e) {
            reply.fail(method + ": arguments do not parse: " + e.getMessage());
        }
    }

    private void initialize(InitializeConnectionRequest request, Reply reply) {
        if (endpoint != null) {
            reply.fail("InitializeConnection called twice");
            return;
        }
        String name = request.getProducerName().isEmpty()
                ? "producer-" + connection.id() : request.getProducerName();
        producer = new RemoteProducer(connection);
        endpoint = service.connectProducer(producer, name, connection.peer().uid(), connection.peer().pid());
        reply.complete(InitializeConnectionResponse.getDefaultInstance());
    }

    private void call(String method, ByteString args, Reply reply) throws InvalidProtocolBufferException {
        switch (method) {
            case "RegisterDataSource" -> register(RegisterDataSourceRequest.parseFrom(args).getDataSourceDescriptor(), reply);
            case "UnregisterDataSource" -> {
                endpoint.unregisterDataSource(UnregisterDataSourceRequest.parseFrom(args).getDataSourceName());
                reply.complete(UnregisterDataSourceResponse.getDefaultInstance());
            }
            case "CommitData" -> commit(CommitDataRequest.parseFrom(args), reply);
            case "GetAsyncCommand" -> {
                if (!producer.attach(reply)) {
                    reply.fail("GetAsyncCommand is already open on this connection");
                }
            }
            case "RegisterTraceWriter" -> {
                RegisterTraceWriterRequest request = RegisterTraceWriterRequest.parseFrom(args);
                if (!validWriter(request.getTraceWriterId())) {
                    reply.fail("trace writer id " + Integer.toUnsignedString(request.getTraceWriterId()) + " is out of range");
                    return;
                }
                endpoint.registerTraceWriter(request.getTraceWriterId(), request.getTargetBuffer());
                reply.complete(RegisterTraceWriterResponse.getDefaultInstance());
            }
            case "UnregisterTraceWriter" -> {
                endpoint.unregisterTraceWriter(UnregisterTraceWriterRequest.parseFrom(args).getTraceWriterId());
                reply.complete(UnregisterTraceWriterResponse.getDefaultInstance());
            }
            case "NotifyDataSourceStarted" -> {
                endpoint.notifyDataSourceStarted(NotifyDataSourceStartedRequest.parseFrom(args).getDataSourceId());
                reply.complete(NotifyDataSourceStartedResponse.getDefaultInstance());
            }
            case "NotifyDataSourceStopped" -> {
                endpoint.notifyDataSourceStopped(NotifyDataSourceStoppedRequest.parseFrom(args).getDataSourceId());
                reply.complete(NotifyDataSourceStoppedResponse.getDefaultInstance());
            }
            case "Sync" -> {
                // jtrace's producers call Sync once they have mapped the SMB (see SetupTracing).
                endpoint.smbMapped();
                reply.complete(SyncResponse.getDefaultInstance());
            }
            default -> reply.fail("ProducerPort." + method + " is not supported by jtrace");
        }
    }

    private void register(DataSourceDescriptor descriptor, Reply reply) {
        if (descriptor.getName().isEmpty()) {
            reply.complete(RegisterDataSourceResponse.newBuilder().setError("a data source needs a name").build());
            return;
        }
        endpoint.registerDataSource(new io.jtrace.service.DataSourceDescriptor(descriptor.getName(),
                descriptor.getWillNotifyOnStart(), descriptor.getWillNotifyOnStop()));
        reply.complete(RegisterDataSourceResponse.getDefaultInstance());
    }

    private void commit(CommitDataRequest wire, Reply reply) {
        CommitRequest request;
        try {
            request = CommitDataCodec.decode(wire);
        } catch (IllegalArgumentException e) {
            LOG.warn("jtrace: producer on connection {} ({}) sent a commit the service refuses: {}", connection.id(),
                    connection.peer(), e.getMessage());
            reply.fail("CommitData refused: " + e.getMessage());
            return;
        }
        if (!request.isEmpty()) {
            endpoint.commit(request);
        }
        // After the commit: the endpoint posts both in order, so the flush is acked once its chunks are in.
        if (wire.getFlushRequestId() != 0) {
            endpoint.flushComplete(wire.getFlushRequestId());
        }
        reply.complete(CommitDataResponse.getDefaultInstance());
    }

    private static boolean validWriter(int writerId) {
        return writerId >= 1 && writerId <= MAX_WRITER_ID;
    }

    @Override
    public void unbound() {
        if (endpoint != null) {
            endpoint.disconnect();
        }
    }
}
