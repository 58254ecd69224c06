package io.jtrace.service.port;

import io.jtrace.protos.DataSourceDescriptor;
import io.jtrace.protos.TracingServiceState;
import io.jtrace.service.status.BufferStatus;
import io.jtrace.service.status.ProducerStatus;
import io.jtrace.service.status.ServiceStatus;
import io.jtrace.service.status.SessionStatus;

/** The service's status as Perfetto's {@code TracingServiceState}, for QueryServiceState. */
public final class ServiceStateProtos {
    private ServiceStateProtos() {}

    public static TracingServiceState of(ServiceStatus status) {
        TracingServiceState.Builder state = TracingServiceState.newBuilder()
                .setSupportsTracingSessions(true)
                .setTracingServiceVersion("jtrace " + version());
        for (ProducerStatus p : status.producers()) {
            state.addProducers(TracingServiceState.Producer.newBuilder()
                    .setId(p.id()).setName(p.name()).setPid(p.pid()).setUid(p.uid()));
            for (String source : p.dataSources()) {
                state.addDataSources(TracingServiceState.DataSource.newBuilder().setProducerId(p.id())
                        .setDsDescriptor(DataSourceDescriptor.newBuilder().setName(source)));
            }
        }
        int started = 0;
        for (SessionStatus s : status.sessions()) {
            TracingServiceState.TracingSession.Builder session = TracingServiceState.TracingSession.newBuilder()
                    .setId(s.id()).setConsumerUid(s.consumerUid()).setState(s.state())
                    .setUniqueSessionName(s.uniqueName()).setDurationMs(s.config().getDurationMs())
                    .setNumDataSources(s.dataSources().size())
                    // Perfetto's is_started: the session traces. Here: its data sources have all started.
                    .setIsStarted("STARTED".equals(s.state()) && s.dataSourcesStarted());
            for (BufferStatus b : s.buffers()) {
                session.addBufferSizeKb((int) (b.capacity() / 1024));
            }
            if (session.getIsStarted()) {
                started++;
            }
            state.addTracingSessions(session);
        }
        return state.setNumSessions(status.sessions().size()).setNumSessionsStarted(started).build();
    }

    private static String version() {
        String v = ServiceStateProtos.class.getPackage().getImplementationVersion();
        return v != null ? v : "dev";
    }
}
