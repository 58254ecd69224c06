/**
 * What both ends of the producer and consumer ports share: the services' names and methods (from the
 * protos' service definitions, so they are Perfetto's) and the conversion of commits to and from
 * {@code CommitDataRequest}.
 */
package io.jtrace.ports;
