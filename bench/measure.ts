import { type LoadOptions, type LoadSample, type LoadTool, runLoad, summarize } from './load.ts'
import { machineBusySeconds, type ServerProcess } from './processes.ts'
import type { Endpoint, Measurement, ServerName } from './report.ts'

export interface Schedule {
  tool: LoadTool
  connections: number
  warmupS: number
  /** Measured seconds per server = rounds x roundS. */
  rounds: number
  roundS: number
}

interface Tally {
  samples: LoadSample[]
  serverCpuS: number
  loadGeneratorCpuS: number
  machineCpuS: number
  wallS: number
}

const emptyTally = (): Tally => ({
  samples: [],
  serverCpuS: 0,
  loadGeneratorCpuS: 0,
  machineCpuS: 0,
  wallS: 0,
})

async function measuredRound(server: ServerProcess, load: LoadOptions, tally: Tally): Promise<void> {
  const serverCpu = server.cpuSeconds()
  const machineCpu = machineBusySeconds()
  const started = performance.now()
  const sample = await runLoad(load)
  tally.wallS += (performance.now() - started) / 1000
  tally.loadGeneratorCpuS += sample.cpuS
  tally.serverCpuS += server.cpuSeconds() - serverCpu
  tally.machineCpuS += machineBusySeconds() - machineCpu
  if (sample.failures > 0) throw new Error(`${server.name}: ${sample.failures} failed requests`)
  tally.samples.push(sample)
}

/**
 * One endpoint on every server: a warm-up each, then short rounds that alternate between them
 * (and rotate which goes first), so a slow spell of this shared machine weighs on all alike.
 */
export async function measureEndpoint(
  endpoint: Endpoint,
  servers: ServerProcess[],
  request: { path: (n: number) => string; headers: Record<string, string> },
  schedule: Schedule,
): Promise<Measurement[]> {
  const options = (server: ServerProcess, durationS: number): LoadOptions => ({
    tool: schedule.tool,
    url: server.url,
    ...(server.urls ? { urls: server.urls } : {}),
    ...request,
    connections: schedule.connections,
    durationS,
  })
  for (const server of servers) await runLoad(options(server, schedule.warmupS))
  const tallies = servers.map(emptyTally)
  for (let round = 0; round < schedule.rounds; round++) {
    for (let i = 0; i < servers.length; i++) {
      const at = (round + i) % servers.length
      await measuredRound(servers[at]!, options(servers[at]!, schedule.roundS), tallies[at]!)
    }
  }
  return servers.map((server, i) => {
    const tally = tallies[i]!
    return {
      endpoint,
      server: server.name as ServerName,
      load: summarize(tally.samples),
      peakRss: server.peakRss(),
      startRss: server.startRss,
      serverCores: tally.serverCpuS / tally.wallS,
      loadGeneratorCores: tally.loadGeneratorCpuS / tally.wallS,
      otherCores: Math.max(0, tally.machineCpuS - tally.serverCpuS - tally.loadGeneratorCpuS) / tally.wallS,
    }
  })
}
