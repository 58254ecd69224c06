package io.jtrace.agent.control;

import io.jtrace.jmx.BufferInfo;
import io.jtrace.jmx.DumpInfo;
import io.jtrace.jmx.SessionInfo;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.status.BufferStatus;
import io.jtrace.service.status.SessionStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** Turns the service's view of a session into what the control surfaces show, and into one line of text. */
public final class SessionInfos {
    private SessionInfos() {}

    static SessionInfo of(AgentSession session, SessionStatus status, String state, String error, long eventsLost) {
        List<BufferInfo> buffers = new ArrayList<>();
        long writerLoss = 0;
        List<String> sources = List.of();
        long bytes = session.fileBytes();
        if (status != null) {
            for (BufferStatus b : status.buffers()) {
                TraceStats.BufferStats s = b.stats();
                buffers.add(new BufferInfo(b.id(), b.capacity(), b.used(),
                        (int) (b.capacity() == 0 ? 0 : b.used() * 100 / b.capacity()), b.fillPolicy(),
                        s.getBytesWritten(), s.getBytesOverwritten(), s.getChunksWritten(), s.getChunksOverwritten(),
                        s.getChunksDiscarded(), s.getTraceWriterPacketLoss(), s.getAbiViolations(),
                        s.getPatchesFailed()));
                writerLoss += s.getTraceWriterPacketLoss();
            }
            sources = status.dataSources();
            if (bytes == 0) {
                bytes = status.fileBytes();
            }
        }
        return new SessionInfo(session.name, session.id(), state, session.mode.label(), summary(session.config),
                session.file.toAbsolutePath().toString(), bytes, Integer.toUnsignedLong(session.config.getDurationMs()), sources, buffers,
                SessionInfo.chunksLost(session.mode.label(), buffers), writerLoss, eventsLost, error);
    }

    /** The service's state as the surfaces name it. */
    static String state(SessionStatus status) {
        return status == null || !"STARTED".equals(status.state()) ? "STOPPING" : "STARTED";
    }

    /** One line: the data sources, buffers and duration a config asks for. */
    static String summary(TraceConfig config) {
        StringJoiner sources = new StringJoiner("+");
        for (TraceConfig.DataSource ds : config.getDataSourcesList()) {
            DataSourceConfig c = ds.getConfig();
            String categories = c.hasTrackEventConfig() && c.getTrackEventConfig().getEnabledCategoriesCount() > 0
                    ? "[" + String.join("+", c.getTrackEventConfig().getEnabledCategoriesList()) + "]" : "";
            sources.add(c.getName() + categories);
        }
        StringJoiner buffers = new StringJoiner("+");
        for (TraceConfig.BufferConfig b : config.getBuffersList()) {
            buffers.add(Integer.toUnsignedLong(b.getSizeKb()) + "kb " + (b.getFillPolicy() == TraceConfig.BufferConfig.FillPolicy.DISCARD
                    ? "discard" : "ring"));
        }
        return "sources=" + sources + " buffers=" + buffers
                + (config.getDurationMs() != 0 ? " duration=" + Integer.toUnsignedLong(config.getDurationMs()) + "ms" : " duration=unlimited");
    }

    /** One line of text for logs and the command line. */
    public static String line(SessionInfo s) {
        return line(s, true);
    }

    /**
     * One line of text; without {@code withError}, an error is only marked ("trace incomplete"), for a log
     * where it was logged already.
     */
    static String line(SessionInfo s, boolean withError) {
        StringBuilder b = new StringBuilder();
        b.append("session '").append(s.name()).append("' (id ").append(s.id()).append("): ").append(s.state())
                .append(", ").append(s.mode()).append(", ").append(s.config()).append(", file ").append(s.file())
                .append(", ").append(s.bytesWritten()).append(" bytes written");
        for (BufferInfo buffer : s.buffers()) {
            b.append(", buffer ").append(buffer.sizeBytes() / 1024).append("kb ").append(buffer.fillPercent())
                    .append("% full");
        }
        if (s.eventsLost() >= 0) {
            b.append(", track events lost ").append(s.eventsLost());
        }
        if ("ring".equals(s.mode())) {
            // Not in chunks lost (SessionInfo#chunksLost): overwriting its oldest chunks is what a ring is for.
            b.append(", oldest chunks overwritten ")
                    .append(s.buffers().stream().mapToLong(BufferInfo::chunksOverwritten).sum());
        }
        b.append(", chunks lost ").append(s.chunksLost()).append(", writer drops ").append(s.writerPacketLoss());
        if (!s.error().isEmpty()) {
            b.append(withError ? ", error: " + s.error() : ", trace incomplete");
        }
        return b.toString();
    }

    public static String line(DumpInfo d) {
        return "session '" + d.session() + "' dumped to " + d.file() + ": " + d.bytes() + " bytes, " + d.packets()
                + " packets";
    }
}
