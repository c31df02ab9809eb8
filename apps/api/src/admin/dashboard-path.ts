/** Where the queue dashboard is served (kept apart so the API document needs no Bull Board code). */
export const DASHBOARD_PATH = '/admin/queues';
