package io.jtrace.service;

/**
 * A data source a producer offers (Perfetto's DataSourceDescriptor).
 *
 * @param name what configs call it in {@code data_sources.config.name}
 * @param willNotifyOnStart the producer calls {@link ProducerEndpoint#notifyDataSourceStarted} once an
 *     instance really started; the consumer's enableTracing completes only then
 * @param willNotifyOnStop the producer calls {@link ProducerEndpoint#notifyDataSourceStopped} once an
 *     instance stopped; the service waits for it (bounded) before the final flush
 */
public record DataSourceDescriptor(String name, boolean willNotifyOnStart, boolean willNotifyOnStop) {
    public static DataSourceDescriptor named(String name) {
        return new DataSourceDescriptor(name, false, false);
    }
}
