/** Read-only views of the service's state for control surfaces (JMX, jcmd, the CLI). */
package io.jtrace.service.status;
