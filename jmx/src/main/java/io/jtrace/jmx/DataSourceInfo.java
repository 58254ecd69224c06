package io.jtrace.jmx;

/** A data source a config can name, and the producer that offers it. */
public record DataSourceInfo(String name, String producer) {
}
