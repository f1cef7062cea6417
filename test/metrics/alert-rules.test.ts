import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { promtool, promtoolAvailable } from './exposition.ts'

const DIR = join(import.meta.dir, '../../ops/prometheus')

describe('ops/prometheus/alerts.yml', () => {
  it('passes promtool check rules', async () => {
    if (!promtoolAvailable()) return
    const { code, output } = await promtool(['check', 'rules', join(DIR, 'alerts.yml')])
    expect(output).toContain('SUCCESS: 6 rules found')
    expect(code).toBe(0)
  })

  it('fires each alert on the series of alerts.test.yml that should, and on no other (promtool test rules)', async () => {
    if (!promtoolAvailable()) return
    const { code, output } = await promtool(['test', 'rules', join(DIR, 'alerts.test.yml')])
    expect(output).toContain('SUCCESS')
    expect(code).toBe(0)
  })
})
