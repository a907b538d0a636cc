/** Where the app shows a project and one of its flags (deep links: the gateway serves the app there). */
export const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`;

export const flagPath = (projectId: string, flag: string) => `${projectPath(projectId)}/features/${encodeURIComponent(flag)}`;

export const changeRequestPath = (projectId: string, id: number) => `${projectPath(projectId)}/change-requests/${id}`;
