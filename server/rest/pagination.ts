export * from '../../shared/query/pagination.ts'
